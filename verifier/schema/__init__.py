"""JSON Schema support: the schema bundle (plan and inspect check records with it), the format
policy, the bounded ECMA-262 regex engine, the reference engine's patch and the subschema walk."""
