"""The API's JSON for a reply message, fast: the same dict as `grpc_util.message_to_json`, built by
a plan compiled once per message type instead of protobuf's generic field-by-field walk.

Why: a mid-game view holds ~150 small messages (every route's path steps), and json_format spent
~3 ms of CPU on each, more than everything else a request costs. tests/gateway/test_fastjson.py
checks that both give equal dicts for every kind of reply the engine and the AI send.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

from services.common.grpc_util import DETAIL

Convert = Callable[[Any], Any]
Step = Callable[[Message, dict[str, Any]], None]

_PLANS: dict[str, Callable[[Message], Any]] = {}
_INT64 = {
    FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64,
}  # fmt: skip


def message_json(message: Message) -> Any:
    """The HTTP API's JSON of `message` (a dict; a string for well-known types like Timestamp)."""
    return _plan(message.DESCRIPTOR)(message)


def _plan(desc: Descriptor) -> Callable[[Message], Any]:
    plan = _PLANS.get(desc.full_name)
    if plan is None:
        plan = _PLANS[desc.full_name] = _compile(desc)
    return plan


def _compile(desc: Descriptor) -> Callable[[Message], Any]:
    if desc.file.package == "google.protobuf":
        # Well-known types have their own JSON forms (Timestamp: an RFC 3339 string).
        return lambda m: json_format.MessageToDict(m, preserving_proto_field_name=True)
    detail = desc.oneofs_by_name.get(DETAIL)
    # Plain scalars (most fields) are read in one comprehension; the rest take a step each.
    plain = tuple(f.name for f in desc.fields if _is_plain(f))
    steps = [_step(field, detail is not None and field.containing_oneof is detail)
             for field in desc.fields if not _is_plain(field)]  # fmt: skip
    if not steps:
        return lambda m: {name: getattr(m, name) for name in plain}

    def convert(message: Message) -> dict[str, Any]:
        out = {name: getattr(message, name) for name in plain}
        for step in steps:
            step(message, out)
        return out

    return convert


def _step(field: FieldDescriptor, lifted: bool) -> Step:
    name = field.name
    if _is_map(field):
        value = _scalar(field.message_type.fields_by_name["value"])

        def map_step(m: Message, out: dict[str, Any]) -> None:
            out[name] = {str(k): value(v) for k, v in getattr(m, name).items()}

        return map_step
    convert = _scalar(field)
    if field.is_repeated:

        def repeated_step(m: Message, out: dict[str, Any]) -> None:
            out[name] = [convert(v) for v in getattr(m, name)]

        return repeated_step
    if lifted:
        # A game's own part (`oneof detail`): its fields sit in the enclosing object.
        def lifted_step(m: Message, out: dict[str, Any]) -> None:
            if m.HasField(name):
                out.update(convert(getattr(m, name)))

        return lifted_step
    if field.has_presence:
        oneof = field.containing_oneof
        explicit = field.message_type is None and oneof is not None and oneof.name == "_" + name

        def present_step(m: Message, out: dict[str, Any]) -> None:
            if m.HasField(name):
                out[name] = convert(getattr(m, name))
            elif explicit:
                out[name] = None  # a proto3 `optional` that is unset: null, not zero

        return present_step

    def plain_step(m: Message, out: dict[str, Any]) -> None:
        out[name] = convert(getattr(m, name))

    return plain_step


def _is_plain(field: FieldDescriptor) -> bool:
    """A singular scalar without presence whose Python value is already its JSON."""
    return (
        field.containing_oneof is None
        and not field.is_repeated
        and not field.has_presence
        and field.message_type is None
        and _scalar(field) is _same
    )


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _scalar(field: FieldDescriptor) -> Convert:
    """How one value of `field` becomes JSON, as json_format writes it."""
    if field.message_type is not None:
        nested = field.message_type
        return lambda v: _plan(nested)(v)
    kind = field.type
    if kind in _INT64:
        return str
    if kind == FieldDescriptor.TYPE_BYTES:
        return lambda v: base64.b64encode(v).decode("ascii")
    if kind == FieldDescriptor.TYPE_ENUM:
        names = {v.number: v.name for v in field.enum_type.values}
        return lambda v: names.get(v, v)
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        single = kind == FieldDescriptor.TYPE_FLOAT

        def number(v: float) -> Any:
            if math.isnan(v):
                return "NaN"
            if math.isinf(v):
                return "Infinity" if v > 0 else "-Infinity"
            return type_checkers.ToShortestFloat(v) if single else v

        return number
    return _same


def _same(value: Any) -> Any:
    return value
