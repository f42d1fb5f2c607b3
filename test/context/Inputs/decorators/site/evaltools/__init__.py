from .decorators import inference_only, passthrough
