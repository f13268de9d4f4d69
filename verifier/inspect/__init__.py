"""Inspect: one file's facts from its task (digest, size, parse and schema verdicts, the values
it yields). Pure: it reads the file its task names and nothing else."""
