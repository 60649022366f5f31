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


_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
#: Collections nested deeper than this are left to the safe constructor, which builds
#: them without recursion.
_DEEPEST = 100


class _Builder(FAST_LOADER):
    """The fast loader, constructing the plain nodes itself.

    The safe constructor makes each mapping and sequence through a generator, filled
    later (so that a document may contain itself), and asks the resolver again for every
    key: most of the time left after libyaml. The shipped spec is strings, lists and
    mappings with string keys; those nodes are built here directly (a node seen before,
    an alias, gives the same object, as in the safe constructor), and every other node --
    numbers, booleans, null, dates, merge keys `<<`, `=` keys, tags, keys that are not
    strings, very deep nesting -- is constructed by the safe constructor as before.
    """

    _depth = 0

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        tag = node.tag
        if tag == _STR and type(node) is yaml.ScalarNode:
            return node.value
        built = self.constructed_objects.get(node)
        if built is not None or self._depth > _DEEPEST:
            return built if built is not None else super().construct_object(node, deep)
        if tag == _SEQ and type(node) is yaml.SequenceNode:
            items: list[Any] = []
            self.constructed_objects[node] = items
            self._depth += 1
            try:
                items.extend([self.construct_object(child) for child in node.value])
            finally:
                self._depth -= 1
            return items
        if (
            tag == _MAP
            and type(node) is yaml.MappingNode
            and all(k.tag == _STR and type(k) is yaml.ScalarNode for k, _ in node.value)
        ):
            mapping: dict[str, Any] = {}
            self.constructed_objects[node] = mapping
            self._depth += 1
            try:
                for key, value in node.value:
                    mapping[key.value] = self.construct_object(value)
            finally:
                self._depth -= 1
            return mapping
        return super().construct_object(node, deep)


def safe_load(text: str) -> Any:
    """`yaml.safe_load(text)`: the same data, the same errors, faster when it can be."""
    try:
        return yaml.load(text, Loader=_Builder)
    except yaml.YAMLError:
        return yaml.safe_load(text)  # the pure loader's own error (or its data)
