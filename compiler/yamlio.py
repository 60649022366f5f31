"""YAML text -> Python data, as `yaml.safe_load` reads it, at libyaml's speed.

Stage: data. Every reader of the shipped spec data (spec/eras, spec/config, spec/attributes)
loads its YAML here. The pure-Python loader of PyYAML spends most of a cold `condor-policy
compile` scanning 190 kB of spec text (issue 11: about 0.3 s of 0.6 s); PyYAML's C loader
(`yaml.CSafeLoader`, libyaml's scanner and parser under the same safe constructor and
resolver) builds the same data in a tenth of that. When PyYAML was built without libyaml
the pure loader is used, so nothing but the time depends on how PyYAML was installed.

The two scanners word their complaints differently, so a text the C loader refuses is read
again by the pure loader: a broken file gets exactly the error `yaml.safe_load` gives (its
problem and mark), and a text only the C scanner refuses still loads as before.
"""

from __future__ import annotations

from typing import Any

import yaml

#: The fast loader when PyYAML has libyaml, else the pure one (same constructor, same tags).
FAST_LOADER: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """`yaml.safe_load(text)`: the same data, the same errors, faster when it can be."""
    try:
        return yaml.load(text, Loader=FAST_LOADER)
    except yaml.YAMLError:
        return yaml.safe_load(text)  # the pure loader's own error (or its data)
