"""PyTorch snippets, each run by real torch and by the interpreter (``test_script_snippets.py``).

They avoid random numbers (the engine's generator is not PyTorch's) and exercise both the
language (functions, classes, loops, comprehensions, f-strings, exceptions) and autograd.
"""

from textwrap import dedent

SNIPPETS = {}


def snippet(name: str, source: str) -> None:
    assert name not in SNIPPETS
    SNIPPETS[name] = dedent(source).strip() + "\n"


snippet("seed_002_gradients", """
    import numpy as np
    import torch as T

    x = np.array([1, 2, 3], dtype=np.float32)
    t1 = T.tensor(x, dtype=T.float32, requires_grad=True)
    t2 = t1 * t1 + 1
    t2.retain_grad()  # leaf
    z = t2.sum()

    print("\\nTensor t1 values, grad, grad_fn: ")
    print(t1)
    print(t1.grad)
    print(t1.grad_fn)

    print("\\nExecuting backward()")
    z.backward()
    print(t1)
    print(t1.grad)
    print(t2.grad)
""")

snippet("seed_003_variable", """
    import torch
    from torch.autograd import Variable
    x = Variable(torch.ones(2, 2) * 2, requires_grad=True)

    z = 2 * (x * x) + 5 * x
    z.backward(torch.ones(2, 2))
    print(x.grad)
""")

snippet("seed_003_variable_no_gradient", """
    import torch
    from torch.autograd import Variable
    x = Variable(torch.ones(2, 2) * 2, requires_grad=True)
    z = 2 * (x * x) + 5 * x
    z.backward()
""")

snippet("seed_000_accumulating_grads", """
    import torch
    w = torch.tensor([1.0, -2.0], requires_grad=True)
    x = torch.tensor([3.0, 4.0])
    history = []
    for step in range(3):
        loss = (w * x).sum() ** 2
        loss.backward()
        history.append(w.grad.clone())
    print(history)
""")

snippet("zero_grad_manual", """
    import torch
    w = torch.tensor([0.5, 1.5], requires_grad=True)
    for i in range(3):
        if w.grad is not None:
            w.grad.zero_()
        y = (w ** 2).sum()
        y.backward()
    g = w.grad
""")

snippet("grad_set_to_none", """
    import torch
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    (w * w).sum().backward()
    first = w.grad.clone()
    w.grad = None
    (3 * w).sum().backward()
    second = w.grad
""")

snippet("requires_grad_setter", """
    import torch
    x = torch.tensor([1.0, 2.0, 3.0])
    x.requires_grad = True
    y = x.exp().sum()
    y.backward()
    print(x.requires_grad, x.is_leaf, y.is_leaf)
""")

snippet("requires_grad_on_int_tensor", """
    import torch
    x = torch.tensor([1, 2, 3])
    x.requires_grad_(True)
""")

snippet("retain_grad_intermediates", """
    import torch
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    b.retain_grad()
    c = b.sigmoid()
    c.retain_grad()
    d = c.sum()
    d.backward()
    print(b.retains_grad, c.retains_grad, a.retains_grad)
""")

snippet("backward_twice_error", """
    import torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()
""")

snippet("backward_retain_graph", """
    import torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
""")

snippet("backward_with_gradient_keyword", """
    import torch
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x ** 3
    y.backward(gradient=torch.tensor([[1.0, 0.5], [0.25, 2.0]]))
""")

snippet("autograd_grad", """
    import torch
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x.tanh() * x).sum()
    (gx,) = torch.autograd.grad(y, x)
    print(x.grad)
""")

snippet("autograd_backward_function", """
    import torch
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    l1 = (a * b).sum()
    l2 = (a + b).mean()
    torch.autograd.backward([l1, l2])
""")

snippet("no_grad_block", """
    import torch
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        v = w * 2
        inside = torch.is_grad_enabled()
    u = w * 2
    print(v.requires_grad, u.requires_grad, inside, torch.is_grad_enabled())
""")

snippet("no_grad_decorator", """
    import torch

    @torch.no_grad()
    def update(p, lr):
        p -= lr * p.grad
        return p.requires_grad

    w = torch.tensor([1.0, -1.0], requires_grad=True)
    (w ** 2).sum().backward()
    flag = update(w, 0.1)
""")

snippet("enable_grad_inside_no_grad", """
    import torch
    x = torch.tensor([2.0], requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            y = x * x
        z = x * x
    print(y.requires_grad, z.requires_grad)
""")

snippet("set_grad_enabled", """
    import torch
    x = torch.tensor([1.0, 3.0], requires_grad=True)
    with torch.set_grad_enabled(False):
        y = x + 1
    with torch.set_grad_enabled(True):
        z = x + 1
""")

snippet("detach_and_data", """
    import torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    dd = x.data
    y = x * d
    y.sum().backward()
    print(d.requires_grad, dd.requires_grad, d.is_leaf)
""")

snippet("manual_sgd_with_data", """
    import torch
    w = torch.tensor([0.0, 0.0], requires_grad=True)
    xs = torch.tensor([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])
    ys = torch.tensor([5.0, 4.0, 9.0])
    lr = 0.01
    for epoch in range(20):
        pred = xs @ w
        loss = ((pred - ys) ** 2).mean()
        loss.backward()
        w.data -= lr * w.grad.data
        w.grad.zero_()
    print(f"final loss {loss.item():.4f}")
""")

snippet("manual_mlp_no_grad_update", """
    import torch
    x = torch.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    y = torch.tensor([[1.0], [1.0], [0.0], [0.0]])
    w1 = torch.tensor([[0.5, -0.4, 0.3], [0.2, 0.6, -0.5]], requires_grad=True)
    b1 = torch.zeros(3, requires_grad=True)
    w2 = torch.tensor([[0.7], [-0.3], [0.5]], requires_grad=True)
    b2 = torch.zeros(1, requires_grad=True)
    params = [w1, b1, w2, b2]
    for it in range(10):
        h = (x @ w1 + b1).relu()
        out = (h @ w2 + b2).sigmoid()
        loss = ((out - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.5 * p.grad
                p.grad = None
    final = loss.item()
""")

snippet("nn_linear_fixed_weights", """
    import torch
    import torch.nn as nn
    lin = nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.1, 0.0, 0.4]]))
        lin.bias.fill_(0.5)
    x = torch.tensor([[1.0, 2.0, 3.0]])
    out = lin(x)
    out.sum().backward()
    print(lin)
    print(out.grad_fn.name(), lin.weight.is_leaf, lin.weight.requires_grad)
""")

snippet("nn_module_class", """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(2, 3)
            self.fc2 = nn.Linear(3, 1)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    net = Net()
    with torch.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
    x = torch.tensor([[1.0, -2.0], [0.5, 0.5]])
    loss = net(x).pow(2).mean()
    loss.backward()
    print(net)
    names = [n for n, _ in net.named_parameters()]
""")

snippet("nn_module_super_two_args", """
    import torch
    from torch import nn

    class Scale(nn.Module):
        def __init__(self, k):
            super(Scale, self).__init__()
            self.k = nn.Parameter(torch.tensor(k))

        def forward(self, x):
            return x * self.k

    m = Scale(2.0)
    y = m(torch.tensor([1.0, 2.0])).sum()
    y.backward()
    grad = m.k.grad
""")

snippet("nn_sequential_mse", """
    import torch
    import torch.nn as nn
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(0.25)
    criterion = nn.MSELoss()
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
    y = torch.tensor([[1.0], [0.0]])
    loss = criterion(model(x), y)
    loss.backward()
    print(loss.grad_fn.name())
""")

snippet("cross_entropy", """
    import torch
    import torch.nn as nn
    logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
    target = torch.tensor([0, 1])
    loss = nn.CrossEntropyLoss()(logits, target)
    loss.backward()
""")

snippet("optim_sgd_momentum", """
    import torch
    from torch import optim
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    for i in range(3):
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        opt.step()
    buf = opt.state[w]["momentum_buffer"]
""")

snippet("optim_adam", """
    import torch
    import torch.optim as optim
    w = torch.tensor([0.5, -0.25, 2.0], requires_grad=True)
    opt = optim.Adam([w], lr=0.05)
    for i in range(4):
        opt.zero_grad()
        loss = (w ** 2 + w).sum()
        loss.backward()
        opt.step()
    state = opt.state[w]
    exp_avg = state["exp_avg"]
    exp_avg_sq = state["exp_avg_sq"]
""")

snippet("training_loop_module_sgd", """
    import torch
    import torch.nn as nn
    import torch.optim as optim

    model = nn.Linear(1, 1)
    with torch.no_grad():
        model.weight.fill_(0.0)
        model.bias.fill_(0.0)
    opt = optim.SGD(model.parameters(), lr=0.05)
    xs = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    ys = 2 * xs + 1
    losses = []
    for epoch in range(15):
        opt.zero_grad()
        loss = ((model(xs) - ys) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    print(losses[-1], [round(v, 3) for v in model.weight.flatten().tolist()])
""")

snippet("functions_defaults_varargs", """
    import torch

    def poly(x, *coeffs, scale=1.0, **extra):
        total = 0
        for power, c in enumerate(coeffs):
            total = total + c * x ** power
        return total * scale, sorted(extra)

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y, keys = poly(x, 1.0, 2.0, 3.0, scale=0.5, b=1, a=2)
    y.sum().backward()
""")

snippet("function_arg_errors", """
    def f(a, b, c=3):
        return a + b + c

    ok = f(1, 2)
    f(1)
""")

snippet("recursion_factorial_tensor", """
    import torch

    def fact(n):
        if n <= 1:
            return torch.tensor(1.0, requires_grad=True) if n == 1 else None
        return n * fact(n - 1)

    r = fact(5)
    r.backward()
""")

snippet("lambdas_map_filter_sorted", """
    import torch
    xs = [torch.tensor(float(v), requires_grad=True) for v in [3, -1, 2, 5]]
    squares = list(map(lambda t: t * t, xs))
    positive = list(filter(lambda t: t.item() > 0, xs))
    order = sorted(range(len(xs)), key=lambda i: xs[i].item(), reverse=True)
    total = sum(squares)
    total.backward()
    grads = [x.grad for x in xs]
""")

snippet("comprehensions_stack", """
    import torch
    rows = [torch.tensor([float(i), float(i * i)]) for i in range(4) if i != 2]
    m = torch.stack(rows)
    table = {i: v for i, v in enumerate([10, 20, 30])}
    evens = {i % 3 for i in range(10)}
    nested = [[i * j for j in range(3)] for i in range(3)]
    gen_total = sum(i * i for i in range(10))
""")

snippet("zip_enumerate_loops", """
    import torch
    ws = [torch.tensor(1.0, requires_grad=True), torch.tensor(2.0, requires_grad=True)]
    xs = [3.0, 4.0]
    loss = 0
    for i, (w, x) in enumerate(zip(ws, xs)):
        loss = loss + (i + 1) * w * x
    loss.backward()
    g0, g1 = ws[0].grad, ws[1].grad
""")

snippet("while_break_continue_else", """
    n = 0
    seen = []
    while n < 20:
        n += 1
        if n % 2 == 0:
            continue
        if n > 9:
            break
        seen.append(n)
    else:
        seen.append(-1)
    for k in range(3):
        pass
    else:
        seen.append(100)
""")

snippet("unpacking", """
    a, b = 1, 2
    a, b = b, a
    first, *middle, last = [1, 2, 3, 4, 5]
    (p, q), r = (10, 20), 30
    head, *tail = "xyz"
""")

snippet("unpacking_error", """
    a, b, c = [1, 2]
""")

snippet("fstrings_and_format", """
    import torch
    loss = torch.tensor(0.123456)
    w = torch.tensor([1.5, 2.25])
    s1 = f"loss={loss.item():.4f} w={w.tolist()} n={3:>5} {'x'!r}"
    s2 = "epoch {} loss {:.3f} name {name}".format(7, 1.23456, name="net")
    s3 = "%d items, %.2f%% done, %s" % (5, 12.345, "ok")
    print(s1)
    print(s2)
    print(s3)
    print(f"{w}")
""")

snippet("print_sep_end", """
    import torch
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    print(t, t.shape, sep=" | ", end="!\\n")
    print(1, 2, 3, sep="")
    print()
    print([torch.tensor(1.5), torch.tensor([1, 2])])
    print(t.dtype, t.long().dtype, t.sum(dim=0))
""")

snippet("inplace_on_leaf_error", """
    import torch
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    w.add_(1)
""")

snippet("inplace_version_error", """
    import torch
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.exp()
    c = b * 2
    b.mul_(3)
    d = (b * c).sum()
    e = a.sigmoid()
    e.add_(1)
    e.sum().backward()
""")

snippet("inplace_saved_tensor_modified", """
    import torch
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.exp()
    b.add_(1)
    b.sum().backward()
""")

snippet("indexing_slicing_grads", """
    import torch
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x[1:, ::2].sum() + x[0, -1] * 3 + x[:, 1].mean()
    y.backward()
""")

snippet("setitem_on_nonleaf", """
    import torch
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[0] = 10.0
    y.sum().backward()
""")

snippet("matmul_grads", """
    import torch
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    b = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], requires_grad=True)
    c = a @ b
    d = torch.mm(a.t(), a).sum()
    (c.sum() + d).backward()
""")

snippet("matmul_shape_error", """
    import torch
    a = torch.ones(2, 3)
    b = torch.ones(2, 3)
    c = a @ b
""")

snippet("reductions_dims", """
    import torch
    x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
    s = x.sum(dim=0)
    m = x.mean(dim=1, keepdim=True)
    v, i = x.max(dim=1)
    total = s.sum() + m.sum() + v.sum()
    total.backward()
""")

snippet("softmax_logsoftmax", """
    import torch
    import torch.nn.functional as F
    z = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
    p = F.softmax(z, dim=1)
    lp = torch.log_softmax(z, dim=1)
    loss = -(lp[:, 0]).mean() + (p[:, 1] ** 2).sum()
    loss.backward()
""")

snippet("activations", """
    import torch
    x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
    y = x.sigmoid() + x.tanh() + x.relu() + torch.exp(x) / 10
    y.sum().backward()
""")

snippet("exp_log_sqrt", """
    import torch
    x = torch.tensor([0.5, 1.0, 4.0], requires_grad=True)
    y = torch.log(x) + torch.sqrt(x) * x.exp().log()
    y.backward(torch.ones(3))
""")

snippet("broadcasting_grads", """
    import torch
    a = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
    b = torch.tensor([10.0, 20.0], requires_grad=True)
    c = (a * b + a - b).sum()
    c.backward()
""")

snippet("views_reshape_transpose", """
    import torch
    x = torch.arange(6.0, requires_grad=True)
    y = x.view(2, 3).t().reshape(6) * torch.arange(6.0)
    z = y.unsqueeze(0).squeeze().sum()
    z.backward()
""")

snippet("cat_stack_grads", """
    import torch
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0], requires_grad=True)
    c = torch.cat([a, b, a * 2])
    d = torch.stack([a, a + 1], dim=1)
    (c.sum() * d.sum()).backward()
""")

snippet("where_clamp", """
    import torch
    x = torch.tensor([-1.5, 0.2, 3.0], requires_grad=True)
    y = torch.where(x > 0, x * x, -x).sum() + x.clamp(min=-1.0, max=1.0).sum()
    y.backward()
""")

snippet("item_error", """
    import torch
    x = torch.tensor([1.0, 2.0])
    v = x.item()
""")

snippet("bool_ambiguous_error", """
    import torch
    x = torch.tensor([1.0, 2.0])
    if x > 0:
        y = 1
""")

snippet("register_hook_lambda", """
    import torch
    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    h = y.register_hook(lambda g: seen.append(g.clone()))
    x.register_hook(lambda g: g * 2)
    y.sum().backward()
""")

snippet("closures_nonlocal_global", """
    counter = 0

    def make_acc():
        total = 0

        def add(v):
            nonlocal total
            total += v
            return total

        return add

    def bump():
        global counter
        counter += 1

    acc = make_acc()
    acc(3)
    last = acc(4)
    bump()
    bump()
""")

snippet("plain_class", """
    class Meter:
        scale = 2

        def __init__(self, name):
            self.name = name
            self.values = []

        def add(self, v):
            self.values.append(v * self.scale)
            return self

        @property
        def total(self):
            return sum(self.values)

        @staticmethod
        def unit():
            return "kg"

    m = Meter("w").add(1).add(2)
    total = m.total
    unit = Meter.unit()
    name = m.name
    is_meter = isinstance(m, Meter)
""")

snippet("dataset_like_class", """
    import torch

    class Pairs:
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return torch.tensor([float(i)]), torch.tensor([2.0 * i])

    ds = Pairs(4)
    n = len(ds)
    xs = torch.cat([ds[i][0] for i in range(len(ds))])
    ys = torch.cat([ds[i][1] for i in range(len(ds))])
""")

snippet("try_except_runtime_error", """
    import torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    try:
        y.backward()
    except RuntimeError as e:
        message = str(e)
        print("caught:", e)
    finally:
        done = True
    try:
        z = [1, 2][5]
    except (KeyError, IndexError) as e:
        kind = "index"
""")

snippet("assert_failure", """
    import torch
    x = torch.tensor([1.0])
    assert x.item() == 1.0, "fine"
    assert x.item() > 2, "x too small"
""")

snippet("raise_value_error", """
    def check(v):
        if v < 0:
            raise ValueError(f"negative value: {v}")
        return v

    a = check(3)
    check(-2)
""")

snippet("isinstance_checks", """
    import torch
    import torch.nn as nn
    p = nn.Parameter(torch.ones(2))
    t = torch.ones(2)
    r = (isinstance(p, torch.Tensor), isinstance(t, nn.Parameter), isinstance(p, nn.Parameter),
         isinstance(3, (int, float)), isinstance(t, torch.Tensor))
    print(p)
""")

snippet("next_functions_walk", """
    import torch
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = (a * b + a).sum()
    names = []
    node = c.grad_fn
    while node is not None:
        names.append(node.name())
        nxt = [f for f, _ in node.next_functions if f is not None]
        node = nxt[0] if nxt else None
    print(names)
""")

snippet("tolist_numpy", """
    import torch
    import numpy as np
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    lst = x.tolist()
    arr = x.numpy()
    total = float(arr.sum())
    y = torch.from_numpy(np.arange(4.0)).reshape(2, 2)
    shape = arr.shape
""")

snippet("numpy_requires_grad_error", """
    import torch
    x = torch.tensor([1.0], requires_grad=True)
    a = x.numpy()
""")

snippet("creation_functions", """
    import torch
    a = torch.zeros(2, 3)
    b = torch.ones((2,), dtype=torch.float64)
    c = torch.full((2, 2), 7.0)
    d = torch.arange(0, 10, 3)
    e = torch.linspace(0, 1, 5)
    f = torch.eye(3)
    g = torch.zeros_like(c)
    h = torch.tensor([[1, 2], [3, 4]])
    print(d, d.dtype, e)
""")

snippet("dtypes_and_casts", """
    import torch
    x = torch.tensor([1.7, -2.2])
    a = x.long()
    b = x.int().float()
    c = x.double() * 2
    d = x.to(torch.float64)
    print(a, a.dtype, c.dtype, x.dtype == torch.float32)
""")

snippet("size_and_shape", """
    import torch
    x = torch.zeros(2, 3, 4)
    s = x.shape
    n = x.numel()
    d = x.dim()
    print(s, x.size(1), s[0] * s[2], len(x))
""")

snippet("chained_comparisons", """
    import torch
    v = torch.tensor(0.5).item()
    inside = 0 < v < 1
    outside = 1 < v <= 2
    both = inside and not outside or False
    pick = "a" if inside else "b"
""")

snippet("name_error", """
    import torch
    x = torch.ones(1)
    y = x + undefined_name
""")

snippet("zero_division", """
    total = 10
    count = 0
    mean = total / count
""")

snippet("main_guard", """
    import torch

    def main():
        x = torch.tensor([2.0], requires_grad=True)
        y = x ** 3
        y.backward()
        return x.grad

    if __name__ == "__main__":
        g = main()
""")

snippet("dict_and_list_methods", """
    scores = {"a": 1}
    scores["b"] = 2
    scores.update(c=3)
    keys = list(scores.keys())
    items = sorted(scores.items(), key=lambda kv: -kv[1])
    lst = [3, 1, 2]
    lst.sort()
    lst.insert(0, 9)
    popped = lst.pop()
    del scores["a"]
    joined = ", ".join(str(k) for k in keys)
    upper = "abc".upper().replace("B", "-")
    mx, mn = max(lst), min(3, 4, 1)
    dv = divmod(17, 5)
    pw = pow(2, 10)
    ab = abs(-3.5)
    rd = round(2.675, 2)
    anyall = (any([0, 0, 1]), all([1, 1, 0]))
    rev = list(reversed([1, 2, 3]))
""")

snippet("optimizer_param_groups_lr", """
    import torch
    from torch import optim
    w = torch.tensor([1.0], requires_grad=True)
    opt = optim.SGD([w], lr=1.0)
    for group in opt.param_groups:
        group["lr"] = 0.5
    (w * w).sum().backward()
    opt.step()
    lr = opt.param_groups[0]["lr"]
""")

snippet("module_zero_grad_and_params", """
    import torch
    import torch.nn as nn
    lin = nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.fill_(1.0)
        lin.bias.fill_(0.0)
    lin(torch.tensor([[1.0, 2.0]])).sum().backward()
    before = lin.weight.grad.clone()
    lin.zero_grad()
    after = lin.weight.grad
    count = sum(p.numel() for p in lin.parameters())
""")

snippet("grad_of_non_leaf_is_none", """
    import torch
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.sum()
    z.backward()
    g = y.grad
""")

snippet("integer_math_and_strings", """
    big = 2 ** 100
    shifted = 1 << 40
    text = "ab" * 3
    lst = [0] * 5
    mod = 17 % 5
    fl = 7 // 2
    neg = -big
    inv = ~5
    bits = 6 & 3 | 8 ^ 1
""")

snippet("grad_accumulate_two_losses", """
    import torch
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    l1 = (w * 3).sum()
    l2 = (w ** 2).sum()
    l1.backward()
    l2.backward()
""")

snippet("tensor_iteration", """
    import torch
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    rows = []
    for row in m:
        rows.append(row.sum())
    total = sum(rows)
    total.backward()
""")

snippet("augmented_assignment_targets", """
    import torch

    class Box:
        def __init__(self):
            self.v = 1

    b = Box()
    b.v += 4
    d = {"k": 1}
    d["k"] *= 10
    t = torch.tensor([1.0, 2.0])
    t[0] += 5
    lst = [1]
    lst += [2, 3]
    s = "a"
    s += "b"
""")

snippet("walrus_and_ifexp", """
    values = [1, 5, 2, 8]
    big = [y for v in values if (y := v * 2) > 4]
    label = "many" if len(big) > 2 else "few"
""")

snippet("set_printoptions", """
    import torch
    torch.set_printoptions(precision=2)
    print(torch.tensor([1.23456, 2.5]))
    torch.set_printoptions(profile="default")
    print(torch.tensor([1.23456, 2.5]))
""")

snippet("variable_volatile_style_loop", """
    import torch
    from torch.autograd import Variable
    x = Variable(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
    y = Variable(torch.tensor([[1.0], [0.0]]))
    w = Variable(torch.tensor([[0.5], [-0.5]]), requires_grad=True)
    for i in range(3):
        loss = ((x @ w - y) ** 2).sum()
        loss.backward()
        w.data = w.data - 0.01 * w.grad.data
        w.grad.data.zero_()
""")

snippet("type_of_tensor_printed", """
    import torch
    x = torch.ones(1)
    print(type(x), type(x).__name__, type(x.item()))
""")

snippet("old_style_module_init", """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            nn.Module.__init__(self)
            self.scale = nn.Parameter(torch.tensor([2.0, 3.0]))

        def forward(self, x):
            return (self.scale * x).sum()

    class Sub(Net):
        def __init__(self):
            Net.__init__(self)

    net = Sub()
    out = net(torch.tensor([1.0, -1.0]))
    out.backward()
    print(net, out)
""")
