# Checkpoints torch.save could never write, made without torch (tests/cli/torch_models.sh): a
# fake torch module gives the globals their names, a Pickler subclass writes the persistent ids.
import collections, io, pickle, struct, sys, types, zipfile

torch = types.ModuleType("torch")
utils = types.ModuleType("torch._utils")
class FloatStorage: pass
FloatStorage.__module__ = "torch"
torch.FloatStorage = FloatStorage
def _rebuild_tensor_v2(*a): pass
_rebuild_tensor_v2.__module__ = "torch._utils"
utils._rebuild_tensor_v2 = _rebuild_tensor_v2
torch._utils = utils
sys.modules["torch"] = torch
sys.modules["torch._utils"] = utils

class Storage:
    def __init__(self, key, numel): self.key, self.numel = key, numel
class Tensor:
    def __init__(self, storage, offset, size, stride): self.a = (storage, offset, size, stride, False, collections.OrderedDict())
    def __reduce__(self): return (_rebuild_tensor_v2, self.a)

class P(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage): return ("storage", FloatStorage, obj.key, "cpu", obj.numel)
        return None

def data_pkl(sd):
    b = io.BytesIO()
    P(b, protocol=2).dump(sd)
    return b.getvalue()

def write_zip(path, sd, storages):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", data_pkl(sd))
        for key, data in storages.items(): z.writestr(f"archive/data/{key}", data)

s = Storage("0", 4)
# 1. a broadcast view: 2^40 elements of a 4-value storage
write_zip("broadcast.bin", collections.OrderedDict([("w", Tensor(s, 0, (1 << 40,), (0,)))]), {"0": b"\0" * 16})
# 2. a storage that claims 2^60 values
big = Storage("0", 1 << 60)
write_zip("huge_storage.bin", collections.OrderedDict([("w", Tensor(big, 0, (4,), (1,)))]), {"0": b"\0" * 16})
# 3. a view past its storage
write_zip("past_end.bin", collections.OrderedDict([("w", Tensor(s, 2, (4,), (1,)))]), {"0": b"\0" * 16})
# 4. sizes that overflow: (2^33, 2^33) with strides (2^33, 1)
write_zip("overflow.bin", collections.OrderedDict([("w", Tensor(s, 0, (1 << 33, 1 << 33), (1 << 33, 1)))]), {"0": b"\0" * 16})
# 5. a storage entry shorter than declared
write_zip("short_entry.bin", collections.OrderedDict([("w", Tensor(s, 0, (4,), (1,)))]), {"0": b"\0" * 8})
