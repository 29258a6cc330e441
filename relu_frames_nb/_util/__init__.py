"""Private utilities: validation, budgets and progress, formatting, exact arithmetic, LPs, kernels."""
