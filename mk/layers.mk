# make check-layers (a part of make check): every include of src/ goes down the layers
# (scripts/collshim-check-layers), and the tree is kept honest (scripts/collshim-check-tree):
# no ticket numbers, no citation of a document outside the repository, no .c file of src/ or
# tools/ over 500 lines, no plain mpiexec, mpirun or mpicc in README.md, docs/ and man/.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_layers_default_goal := $(.DEFAULT_GOAL)

check-layers:
	scripts/collshim-check-layers
	scripts/collshim-check-tree

# The tree alone.
check-tree:
	scripts/collshim-check-tree

CHECK_EXTRA += check-layers
.PHONY: check-layers check-tree

.DEFAULT_GOAL := $(cs_layers_default_goal)
