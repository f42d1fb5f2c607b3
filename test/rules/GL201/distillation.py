# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# Distillation: a teacher pipeline offloaded in __init__ only computes targets, under no_grad (a
# decorated method or a `with` block), for a separately loaded student that is trained. The
# loss reaches `self.student`, not `self` as a whole: the teacher's hooks never see training.
# Its twins train the teacher itself, or take the targets with grad on.
import torch
from diffusers import StableDiffusionPipeline, UNet2DConditionModel


class Distiller:
    def __init__(self, teacher_path, student_path):
        self.teacher = StableDiffusionPipeline.from_pretrained(teacher_path)
        self.teacher.enable_model_cpu_offload()
        self.student = UNet2DConditionModel.from_pretrained(student_path)
        self.optimizer = torch.optim.AdamW(self.student.parameters())

    @torch.no_grad()
    def teacher_targets(self, batch):
        return self.teacher(batch["prompt"], output_type="latent").images

    def train_step(self, batch):
        targets = self.teacher_targets(batch)
        predictions = self.student(batch["latents"], batch["timesteps"]).sample
        loss = torch.nn.functional.mse_loss(predictions, targets)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()

    def train_step_inline(self, batch):
        with torch.no_grad():
            targets = self.teacher.unet(batch["latents"], batch["timesteps"]).sample
        loss = torch.nn.functional.mse_loss(self.student(batch["latents"]).sample, targets)
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()


class TeacherTrained:
    def __init__(self, teacher_path):
        self.teacher = StableDiffusionPipeline.from_pretrained(teacher_path)
        self.teacher.enable_model_cpu_offload()

    def train_step(self, batch):
        predictions = self.teacher.unet(batch["latents"], batch["timesteps"]).sample
        loss = torch.nn.functional.mse_loss(predictions, batch["targets"])
        # CHECK: [[@LINE+1]]:9: GL201 `self.teacher` has offload hooks from `enable_model_cpu_offload()` and is trained here (`backward()` through it)
        loss.backward()


class TargetsWithGrad:
    def __init__(self, teacher_path, student_path):
        self.teacher = StableDiffusionPipeline.from_pretrained(teacher_path)
        self.teacher.enable_model_cpu_offload()
        self.student = UNet2DConditionModel.from_pretrained(student_path)

    def train_step(self, batch):
        targets = self.teacher.unet(batch["latents"], batch["timesteps"]).sample
        predictions = self.student(batch["latents"]).sample
        loss = torch.nn.functional.mse_loss(predictions, targets)
        # CHECK: [[@LINE+1]]:9: GL201 `self.teacher` has offload hooks from `enable_model_cpu_offload()` and is trained here (`backward()` through it)
        loss.backward()


# The loss has no name: `self.student(...).loss.backward()` is computed from `self.student`,
# not from `self` as a whole, so the offloaded teacher is not trained. Its twin trains the
# teacher's own output.
class UnnamedStudentLoss:
    def __init__(self, teacher_path, student_path):
        self.teacher = StableDiffusionPipeline.from_pretrained(teacher_path)
        self.teacher.enable_model_cpu_offload()
        self.student = UNet2DConditionModel.from_pretrained(student_path)

    def train_step(self, batch):
        self.student(**batch).loss.backward()

    def train_step_through_teacher(self, batch):
        # CHECK: [[@LINE+1]]:9: GL201 `self.teacher` has offload hooks from `enable_model_cpu_offload()` and is trained here (`backward()` through it)
        self.teacher.unet(**batch).loss.backward()
