"""Shared helper of the NetBox 4.6 pynetbox scenarios (not a scenario itself: its name starts with "_").

It is the 3.7 scenarios' harness (../pynetbox/_harness.py: checks printing ok/FAIL/pending lines,
recorded requests), with api() pointed at the 4.6 base, http://host/v4.6, as a pynetbox user of
NetBox 4.6 points it. test/clients-46.test.ts runs these scripts with pynetbox 7.8.0 first on
PYTHONPATH.
"""
import importlib.util
import os

_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pynetbox", "_harness.py")
_spec = importlib.util.spec_from_file_location("harness37", _path)
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)
globals().update({k: v for k, v in vars(_base).items() if not k.startswith("__")})

# every api() of this folder talks to the 4.6 API
_base.URL = _base.URL + "/v4.6"
BASE = _base.URL


def api(token=_base.TOKEN, threading=False, pagination="offset"):
    """pynetbox.api("http://host/v4.6", ...) recording its requests in `nb.wire`; pagination "cursor" pages with start."""
    nb = _base.api(token=token, threading=threading)
    nb.pagination = pagination
    return nb
