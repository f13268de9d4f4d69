"""JSON Schema support for the inspect step: the format policy, the bounded ECMA-262 regex engine,
the reference engine's patch and the subschema walk."""
