"""Slot layouts: how one startd divides a machine into slots (reference/slots.md)."""
