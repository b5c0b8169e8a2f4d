# Attention for one query, by hand: the plane of section 3 in numpy.
import numpy as np
np.set_printoptions(precision=3, suppress=True, floatmode="fixed")

q = np.array([1.4, 0.7])          # the query (the arrow)
K = np.array([[ 1.6,  0.9],       # the keys: girl
              [-1.2,  1.3],       #           ball
              [-1.5, -0.6],       #           red
              [ 0.4, -1.6]])      #           ran
V = np.array([[0.0, 0.0, 1.0],    # their values, colours as (r, g, b): blue
              [0.0, 1.0, 0.0],    #                                     green
              [1.0, 0.0, 0.0],    #                                     red
              [0.5, 0.5, 0.5]])   #                                     grey
tau = 1.0                         # the temperature

scores = K @ q                    # one dot product per key: [4]
e = np.exp((scores - scores.max()) / tau)
weights = e / e.sum()             # softmax: positive, adding up to 1
output = weights @ V              # the weighted average of the values: [3]

print("scores ", scores)
print("weights", weights)
print("output ", output)
