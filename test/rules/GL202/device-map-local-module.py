# RUN: not %check-file --select ALL --preview %s | FileCheck %s --implicit-check-not=': GL'
# A device map held in a name of the module or of the `__main__` block: judged by its plain
# bindings there like a function's local, for every loading call that reads it.
from transformers import AutoModelForCausalLM

device_map = "cuda"
offload_map = {"model": 0, "lm_head": "disk"}
base = AutoModelForCausalLM.from_pretrained("base", device_map=device_map)
base.train()
heavy = AutoModelForCausalLM.from_pretrained("heavy", device_map=offload_map)
# CHECK: [[@LINE+1]]:1: GL201 `heavy` has offload hooks from `from_pretrained(device_map=...)` and is trained here (`heavy.train()`)
heavy.train()
again = AutoModelForCausalLM.from_pretrained("base", device_map=device_map)
again.train()
# A later binding counts too: the worst of the map and "cpu" is still the disk map.
offload_map = "cpu"

if __name__ == "__main__":
    main_map = "cuda:0"
    if base.config.use_cache:
        main_map = "auto"
    first = AutoModelForCausalLM.from_pretrained("main", device_map=main_map)
    # CHECK: [[@LINE+1]]:5: GL202 `first` is loaded with an automatic device map and trained here (`first.train()`)
    first.train()
    on_gpu = "cuda:0"
    second = AutoModelForCausalLM.from_pretrained("main", device_map=on_gpu)
    second.train()
