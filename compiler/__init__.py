"""The compiler stage: text in, checked and simplified tables out.

`compiler` turns ClassAd text, HTCondor configuration text and the spec/ data into
immutable, checked structures (expressions, configurations, state tables, diagrams).
It never imports `runtime` and never prints or exits: it returns values or raises
`compiler.errors.PolicyError` subclasses.
"""
