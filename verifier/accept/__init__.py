"""Acceptance: which findings a run counts. After the judges, before the views.

* :mod:`~verifier.accept.baseline`: the baseline file (``--baseline``, ``--write-baseline``);
* :mod:`~verifier.accept.apply`: the report with accepted findings moved out of the counted
  ones, each kept, marked with why, and counted; a baseline entry that matched nothing is a
  finding of its own (``baseline.unmatched``).
"""
