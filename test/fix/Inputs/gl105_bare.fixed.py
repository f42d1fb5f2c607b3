import torch


def predict(model, batch):
    with torch.no_grad():  # meant as a context
        out = model(batch)

        # a comment in the block
        doc = """
kept as is
    """
        if out is None:
            return doc
        return out


def tabs(model, batch):
	with torch.inference_mode():
		return model(
			batch)


def nothing_after(model):
    model.eval()
    torch.no_grad()


def on_one_line(model): torch.no_grad(); return model()


async def serve(model, requests):
    # A coroutine: a `with` over the awaits would leak to the other tasks. No fix.
    torch.no_grad()
    async for request in requests:
        await request.reply(model(request.batch))


with torch.no_grad():
    RESULT = 1
