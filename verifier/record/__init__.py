"""One record's check, a pure function of its bytes and the schema bundle: parsed strictly,
validated, its values extracted; the plan checks its documents with it, inspect every record."""
