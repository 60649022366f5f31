"""What a machine with many slots does at run time, slot by slot.

Stage: runtime. `runtime.slots.load`: how the startd hands out the machine's load and its
keyboard and console idle times to its slots (shared/reference/slots.md section 9).
"""
