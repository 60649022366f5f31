"""HTCondor's own test job_consumption_policies_basic_van.run (23.0 src/condor_tests/;
read with `git show 23.0:src/condor_tests/job_consumption_policies_basic_van.run`): the
part of its configuration that lays out and sizes the four consumption-policy p-slot types
(cpu-, memory-, token- and whole-slot-centric) on one startd. Used by the negotiator-side
(test_consumption) and the startd-side (test_partition) tests."""

BASIC_VAN = """
NUM_CPUS = 20
MACHINE_RESOURCE_tokens = 3
CONSUMPTION_POLICY = True
CONSUMPTION_CPUS = ifthenelse(target.Cpus isnt undefined, quantize(target.Cpus, {1}), 1)
CONSUMPTION_MEMORY = ifthenelse(target.Memory isnt undefined, quantize(target.Memory, {1}), 1)
CONSUMPTION_DISK = ifthenelse(target.Disk isnt undefined, quantize(target.Disk, {100}), 100)
CONSUMPTION_TOKENS = ifthenelse(target.Tokens isnt undefined, target.Tokens, 0)
SLOT_WEIGHT = Cpus
NUM_CLAIMS = 5
SLOT_TYPE_1 = cpus=5,memory=100,disk=25%,tokens=0
SLOT_TYPE_1_PARTITIONABLE = True
SLOT_TYPE_1_NUM_CLAIMS = 10
NUM_SLOTS_TYPE_1 = 1
SLOT_TYPE_2 = cpus=5,memory=100,disk=25%,tokens=0
SLOT_TYPE_2_PARTITIONABLE = True
NUM_SLOTS_TYPE_2 = 1
SLOT_TYPE_2_CONSUMPTION_MEMORY = quantize(target.RequestMemory, {25})
SLOT_TYPE_2_SLOT_WEIGHT = floor(Memory / 25)
SLOT_TYPE_3 = cpus=5,memory=100,disk=25%,tokens=3
SLOT_TYPE_3_PARTITIONABLE = True
NUM_SLOTS_TYPE_3 = 1
SLOT_TYPE_3_CONSUMPTION_TOKENS = 1
SLOT_TYPE_3_CONSUMPTION_CPUS = 0
SLOT_TYPE_3_CONSUMPTION_MEMORY = 0
SLOT_TYPE_3_CONSUMPTION_DISK = 0
SLOT_TYPE_3_SLOT_WEIGHT = Tokens
SLOT_TYPE_4 = cpus=5,memory=100,disk=25%,tokens=0
SLOT_TYPE_4_PARTITIONABLE = True
NUM_SLOTS_TYPE_4 = 1
SLOT_TYPE_4_CONSUMPTION_CPUS = TotalSlotCpus
SLOT_TYPE_4_CONSUMPTION_MEMORY = TotalSlotMemory
SLOT_TYPE_4_CONSUMPTION_DISK = floor(0.9 * Disk)
SLOT_TYPE_4_CONSUMPTION_TOKENS = TotalSlotTokens
MUST_MODIFY_REQUEST_EXPRS = False
START = (Cpus > 0) || (SlotType is "Dynamic")
"""
