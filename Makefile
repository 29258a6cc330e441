# Convenience targets; the scripts do the work (and need only Python 3 and bash).
.PHONY: lab test bench notebooks binder-check book student-edition grade book-pdf app clean

lab:
	bash scripts/lab.sh

test:
	bash scripts/test.sh

notebooks:
	bash scripts/notebooks.sh

binder-check:
	bash scripts/binder_check.sh

book:
	bash scripts/book.sh

book-pdf:
	bash scripts/book.sh --pdf

app:
	bash scripts/app.sh

student-edition:
	bash scripts/student_edition.sh

grade:  # make grade SUBMISSIONS=folder-of-student-folders
	bash scripts/grade.sh $(SUBMISSIONS)

bench:
	bash scripts/_setup.sh "notebooks,test,bench"
	.venv/bin/python -m benchmarks

clean:
	rm -rf .venv .pytest_cache build *.egg-info book/_build book/_vendor book/notebooks book/api student-edition grading
