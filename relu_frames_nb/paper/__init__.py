"""The paper's tools: rectifying tests, maximal biases, the zero-bias test, reconstruction, stability."""
