"""A script offloads in one statement and trains in the next: module code keeps its backward."""
from diffusers import DiffusionPipeline

pipe = DiffusionPipeline.from_pretrained("some/model")
pipe.enable_model_cpu_offload()
for batch in []:
    pipe.unet(batch).sample.mean().backward()  # GL201
