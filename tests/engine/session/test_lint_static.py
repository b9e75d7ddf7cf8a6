"""The static half of the detach/.data lint: which cuts flow into a backward() receiver."""

from engine.session.lint import find_path_cuts


def test_detach_flowing_into_the_loss_is_found_at_its_line():
    source = (
        "h = x @ w1\n"
        "h2 = h.detach()\n"
        "out = h2 @ w2\n"
        "loss = (out - y).pow(2).mean()\n"
        "loss.backward()\n"
    )
    cuts = find_path_cuts(source)
    assert [(c.line, c.what, c.backward_line) for c in cuts] == [(2, ".detach()", 5)]


def test_data_inside_a_forward_method_reaches_the_loss_through_the_model_call():
    source = (
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        h = self.fc1(x).data\n"
        "        return self.fc2(h)\n"
        "model = Net()\n"
        "loss = model(x).sum()\n"
        "loss.backward()\n"
    )
    assert [(c.line, c.what) for c in find_path_cuts(source)] == [(3, ".data")]


def test_detach_used_only_for_logging_or_updates_is_not_a_cut():
    source = (
        "loss = (x * w).sum()\n"
        "history.append(loss.detach())\n"
        "w.data -= 0.1 * w.grad\n"
        "loss.backward()\n"
    )
    assert find_path_cuts(source) == []
