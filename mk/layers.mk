# The include layers of src/ (issue 11): checked by make check.
check-layers:
	scripts/collshim-check-layers

CHECK_EXTRA += check-layers
.PHONY: check-layers
