#### version: base
import torch
from torch import set_grad_enabled

prev = torch.is_grad_enabled()
trainer_state = torch.optim.SGD([], lr=0.1)


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    from torch import set_grad_enabled as sge
    return sge

#### version: lines-added-above
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = torch.is_grad_enabled()
trainer_state = torch.optim.SGD([], lr=0.1)


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    from torch import set_grad_enabled as sge
    return sge

#### version: module-save-removed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = torch.optim.SGD([], lr=0.1)


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    from torch import set_grad_enabled as sge
    return sge

#### version: optimizer-renamed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    from torch import set_grad_enabled as sge
    return sge

#### version: definition-shadows-import
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    from torch import set_grad_enabled as sge
    return sge



def set_grad_enabled(mode):
    return mode
#### version: shadowing-definition-removed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    from torch import set_grad_enabled as sge
    return sge

#### version: one-function-edited
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    from torch import set_grad_enabled as sge
    return sge

#### version: import-in-function-removed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge

#### version: method-added
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        torch.set_grad_enabled(False)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge

#### version: one-method-edited
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge

#### version: method-save-removed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge

#### version: class-body-save-added
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    mode = torch.is_grad_enabled()

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge

#### version: class-body-save-removed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Runner:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge

#### version: class-renamed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge

#### version: nested-class-added
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge



class Outer:
    mode = torch.is_grad_enabled()

    class Inner:
        def restore(self):
            torch.set_grad_enabled(False)
            torch.set_grad_enabled(mode)

        def leak(self):
            torch.set_grad_enabled(False)
#### version: nested-method-edited
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge



class Outer:
    mode = torch.is_grad_enabled()

    class Inner:
        def restore(self):
            torch.set_grad_enabled(False)
            torch.set_grad_enabled(mode)

        def leak(self):
            print('leaking')
            torch.set_grad_enabled(False)
#### version: outer-class-save-removed
# the same definitions, two lines further down

import torch
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge



class Outer:
    mode = True

    class Inner:
        def restore(self):
            torch.set_grad_enabled(False)
            torch.set_grad_enabled(mode)

        def leak(self):
            print('leaking')
            torch.set_grad_enabled(False)
#### version: module-import-aliased
# the same definitions, two lines further down

import torch as th
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge



class Outer:
    mode = True

    class Inner:
        def restore(self):
            torch.set_grad_enabled(False)
            torch.set_grad_enabled(mode)

        def leak(self):
            print('leaking')
            torch.set_grad_enabled(False)
#### version: unrelated-function-added
# the same definitions, two lines further down

import torch as th
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge


def unrelated_addition():
    return 1



class Outer:
    mode = True

    class Inner:
        def restore(self):
            torch.set_grad_enabled(False)
            torch.set_grad_enabled(mode)

        def leak(self):
            print('leaking')
            torch.set_grad_enabled(False)
#### version: used-name-rebound
# the same definitions, two lines further down

import torch as th
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge


def unrelated_addition():
    return 1


def set_grad_enabled(flag):
    return flag



class Outer:
    mode = True

    class Inner:
        def restore(self):
            torch.set_grad_enabled(False)
            torch.set_grad_enabled(mode)

        def leak(self):
            print('leaking')
            torch.set_grad_enabled(False)
#### version: rebinding-removed
# the same definitions, two lines further down

import torch as th
from torch import set_grad_enabled

prev = False
trainer_state = build_optimizer()


def restore_saved():
    set_grad_enabled(False)
    set_grad_enabled(prev)


def leak():
    print('leaking')
    torch.set_grad_enabled(False)


def silenced():
    torch.set_grad_enabled(False)  # noqa: GL101


def train(model, batches):
    for batch in batches:
        model(batch).sum().backward()
        trainer_state.step()


class Trainer:
    mode = True

    def __enter__(self):
        self.saved = False
        torch.set_grad_enabled(False)

    def close(self):
        torch.set_grad_enabled(self.saved)

    def reset(self):
        print('resetting')
        torch.set_grad_enabled(False)
        torch.set_grad_enabled(mode)

    @torch.no_grad()
    def evaluate(self, model, batch):
        return model(batch)


def helper():
    return sge


def unrelated_addition():
    return 1



class Outer:
    mode = True

    class Inner:
        def restore(self):
            torch.set_grad_enabled(False)
            torch.set_grad_enabled(mode)

        def leak(self):
            print('leaking')
            torch.set_grad_enabled(False)
