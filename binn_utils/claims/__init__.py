"""The paper's claims checked against the results, across the study registry.

``context``: how a claim's check reads results (``Context``); ``spanning``: the claims that
span studies (11 and 12); ``scorecard``: every claim checked, the choices of ours that move
a verdict, and what was run.  ``binn_utils.presentation.scorecard_text`` puts them in words.
"""
