# make docs: the generated parts of docs/configuration.md (every key of the schema, every COLLSHIM_*
# variable, the defaults) and docs/algorithms.md (every row of the algorithm tables), written by
# tools/docs/collshim-gen-docs between the pages' marker lines; the prose around them is written
# by hand. The generator links the library's objects, as the unit tests do: it reads the real
# tables. `make check-docs` (a part of `make check`) fails when a committed page differs from
# what the generator writes, or when a key, variable or restriction has no words.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_docs_default_goal := $(.DEFAULT_GOAL)

GEN_DOCS       := $(B)/docs/collshim-gen-docs
GENERATED_DOCS := configuration algorithms

.PHONY: docs check-docs

$(GEN_DOCS): tools/docs/collshim-gen-docs.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(call cs_say,LD)$(MPICC) $(ALLCFLAGS) -o $@ $^ $(YAML_LIBS) -lm

docs: $(GEN_DOCS)
	@for page in $(GENERATED_DOCS); do \
	    $(GEN_DOCS) $$page docs/$$page.md > $(B)/docs/$$page.md || exit 1; \
	    cmp -s $(B)/docs/$$page.md docs/$$page.md || { cp $(B)/docs/$$page.md docs/$$page.md && \
	    echo "docs/$$page.md: regenerated"; }; \
	done

check-docs: $(GEN_DOCS)
	@for page in $(GENERATED_DOCS); do \
	    $(GEN_DOCS) $$page docs/$$page.md > $(B)/docs/$$page.md || exit 1; \
	    diff -u docs/$$page.md $(B)/docs/$$page.md || { \
	        echo "check-docs: docs/$$page.md differs from the tables it is generated from: run make docs" >&2; \
	        exit 1; }; \
	done; echo "check-docs: docs/configuration.md and docs/algorithms.md match the schema and the registry"

CHECK_EXTRA += check-docs

.DEFAULT_GOAL := $(cs_docs_default_goal)
