# make check-layers (a part of make check): every include of src/ goes down the layers
# (scripts/collshim-check-layers).

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_layers_default_goal := $(.DEFAULT_GOAL)

check-layers:
	scripts/collshim-check-layers

CHECK_EXTRA += check-layers
.PHONY: check-layers

.DEFAULT_GOAL := $(cs_layers_default_goal)
