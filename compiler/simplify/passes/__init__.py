"""The simplifier's rewrite passes, one law per module (listed in order in
`compiler.simplify.pipeline.RULES`)."""
