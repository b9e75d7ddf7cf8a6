"""torch.distributions -- the package page's two gradient estimators (the score function with
Categorical.log_prob, the pathwise derivative with Normal.rsample), then the documented class
examples: Bernoulli, Categorical, Normal, Uniform, OneHotCategorical, MultivariateNormal and
kl_divergence.

Source: PyTorch documentation, "Probability distributions - torch.distributions"
https://pytorch.org/docs/stable/distributions.html
License: BSD-3-Clause (pytorch/pytorch documentation)

Written for the gradstep corpus, following the page's examples in order.
Edits vs the source:
- torch.manual_seed(0) added; the examples' REPL results printed.
- The page's policy_network and env (placeholders) are a Linear layer and a reward made up
  here (differentiable for the pathwise case, as the page assumes).
"""
import torch
from torch import nn
from torch.distributions import (Bernoulli, Categorical, MultivariateNormal, Normal,
                                 OneHotCategorical, Uniform, kl_divergence)

torch.manual_seed(0)

policy_network = nn.Linear(3, 4)
state = torch.randn(1, 3)

# Score function
probs = policy_network(state).softmax(dim=-1)
# Note that this is equivalent to what used to be called multinomial
m = Categorical(probs)
action = m.sample()
reward = torch.tensor(1.5) if action.item() % 2 == 0 else torch.tensor(-0.5)
loss = -m.log_prob(action) * reward
loss.backward()
print(action, loss, policy_network.bias.grad)

# Pathwise derivative
policy_network.zero_grad()
params = policy_network(state)[0, :2]
m = Normal(params[0], params[1].exp())
# Any distribution with .has_rsample == True could work based on the application
action = m.rsample()
reward = -(action - 2.0) ** 2  # Assuming that reward is differentiable
loss = -reward
loss.backward()
print(m.has_rsample, action, policy_network.weight.grad[:2])

m = Bernoulli(torch.tensor([0.3]))
print(m.sample())  # 30% chance 1; 70% chance 0

m = Categorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
print(m.sample())  # equal probability of 0, 1, 2, 3

m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
print(m.sample())  # normally distributed with loc=0 and scale=1

m = Uniform(torch.tensor([0.0]), torch.tensor([5.0]))
print(m.sample())  # uniformly distributed in the range [0.0, 5.0)

m = OneHotCategorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
print(m.sample())  # equal probability of 0, 1, 2, 3

m = MultivariateNormal(torch.zeros(2), torch.eye(2))
print(m.sample())  # normally distributed with mean=`[0,0]` and covariance_matrix=`I`

# log_prob, entropy, mean/variance and a closed-form KL
p = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
q = Normal(torch.tensor([0.5, 0.0]), torch.tensor([1.0, 1.0]))
print(p.log_prob(torch.tensor([0.2, 0.2])), p.entropy(), p.mean, p.variance)
print(kl_divergence(p, q))
c = Categorical(logits=torch.tensor([1.0, 2.0, 3.0]))
print(c.probs, c.entropy(), c.sample((5,)))
print(kl_divergence(c, Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))))
