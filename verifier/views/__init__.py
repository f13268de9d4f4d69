"""Views render the reports: one folder per report family (``check/``, ``table/``,
``transcript/``, ``coverage/``), each with one module per format and one registry built on
:class:`verifier.views.interface.Registry`; the CLI's ``--format`` choices come from those
registries. :mod:`.inert` makes archive text inert in each output language, :mod:`.findings`
writes a :class:`verifier.findings.Finding` the same way everywhere, :mod:`.clean` prepares
values for the JSON views. See ``docs/views.md``."""
