"""Model helpers used by //app targets."""
import torch


def freeze_for_inference(model):
    """Puts `model` in inference mode for a teacher or a validation pass."""
    model.eval()
    # The bug: a process-wide toggle that nothing restores. Every caller in another target
    # returns with grad disabled too; gradlint reports them through this target's summary.
    torch.set_grad_enabled(False)
    return model


def accuracy(logits, labels):
    with torch.no_grad():
        return (logits.argmax(dim=-1) == labels).float().mean().item()
