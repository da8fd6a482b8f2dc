"""A simulated robot arm: our stand-in for the CB-i humanoid simulator of the LSCE paper
(Tangkaratt, Xie & Sugiyama, section 3.4), which is not available.

What follows the paper: joints driven by PD controllers tau_i = Kp_i (a_i - s_i) - Kd_i ds_i/dt
with Kp = 2000, Kd = 100 for every joint except the elbow pitch joints (Kp = 200, Kd = 10); the
action a_i is drawn uniformly from [s_i - 0.087, s_i + 0.087] and the controller receives it
corrupted by bimodal Gaussian noise (mean 0 with probability 0.6, mean -0.087 with probability
0.4, standard deviation 0.034); the state is (angles, angular velocities); transitions
(s, a, s') come from controlling the robot repeatedly; the 2-, 4- and 9-joint scenarios use the
paper's joints.

What is ours (the paper does not describe the body): the robot is a planar serial chain of rigid
links in a vertical plane under gravity, one link per joint in the order of JOINTS, each a point
mass at the end of a massless rod (masses and lengths below, loosely a human upper body), with
the manipulator dynamics M(q) q'' + C(q, q') q' + g(q) = tau; one control step lasts 0.05 s and is
integrated with 2 ms steps of linearly implicit Euler in the PD terms (the stiff gains and the
small inertia of distal links make explicit Euler unstable):
(M + dt Kd + dt^2 Kp) q'_new = M q' + dt (Kp (a - q) - C q' - g), q_new = q + dt q'_new.
The 9 joints of a humanoid upper body do not form one planar chain; the chain keeps what matters
for transition estimation — coupled nonlinear dynamics, stiff and soft PD gains, bimodal
actuation noise — and is documented as such in docs/benchmarks.md.
"""

import numpy as np

# The paper's nine joints, in chain order from the torso outwards: (name, Kp, Kd, mass kg,
# length m).
JOINTS = (
    ("torso_pitch", 2000.0, 100.0, 10.0, 0.20),
    ("torso_roll", 2000.0, 100.0, 8.0, 0.15),
    ("waist_yaw", 2000.0, 100.0, 6.0, 0.15),
    ("right_shoulder_pitch", 2000.0, 100.0, 2.0, 0.30),
    ("right_shoulder_roll", 2000.0, 100.0, 1.5, 0.05),
    ("right_elbow_pitch", 200.0, 10.0, 1.0, 0.25),
    ("left_shoulder_pitch", 2000.0, 100.0, 2.0, 0.30),
    ("left_shoulder_roll", 2000.0, 100.0, 1.5, 0.05),
    ("left_elbow_pitch", 200.0, 10.0, 1.0, 0.25),
)
# Section 3.4: 2 joints = right shoulder pitch and right elbow pitch; 4 joints = in addition
# right shoulder roll and waist yaw; 9 joints = all.
SCENARIOS = {
    2: ("right_shoulder_pitch", "right_elbow_pitch"),
    4: ("waist_yaw", "right_shoulder_pitch", "right_shoulder_roll", "right_elbow_pitch"),
    9: tuple(name for name, *_ in JOINTS),
}
GRAVITY = 9.81
CONTROL_PERIOD = 0.05
SUBSTEP = 0.002
ACTION_HALF_WIDTH = 0.087
NOISE_STD = 0.034
NOISE_SHIFT = -0.087
NOISE_SHIFT_PROBABILITY = 0.4


class ArmChain:
    """Planar chain of the named joints (in JOINTS order)."""

    def __init__(self, names):
        table = {name: rest for name, *rest in JOINTS}
        ordered = [name for name, *_ in JOINTS if name in names]
        self.names = ordered
        self.kp, self.kd, self.mass, self.length = (
            np.array([table[name][k] for name in ordered]) for k in range(4))

    def positions(self, q):
        """x, y of every point mass (the end of each link)."""
        angles = np.cumsum(q)
        return np.cumsum(self.length * np.cos(angles)), np.cumsum(self.length * np.sin(angles))

    def jacobians(self, q):
        """(n, 2, n): d(x_k, y_k)/dq of every mass k."""
        n = q.size
        angles = np.cumsum(q)
        dx = -self.length * np.sin(angles)
        dy = self.length * np.cos(angles)
        jac = np.zeros((n, 2, n))
        for k in range(n):
            # Mass k moves with every joint j <= k through links j ... k.
            for j in range(k + 1):
                jac[k, 0, j] = dx[j:k + 1].sum()
                jac[k, 1, j] = dy[j:k + 1].sum()
        return jac

    def mass_matrix(self, q):
        jac = self.jacobians(q)
        return np.einsum("k,kai,kaj->ij", self.mass, jac, jac)

    def bias(self, q, dq, h=1e-6):
        """C(q, dq) dq + g(q): Coriolis and centrifugal terms from the Christoffel symbols of
        M (central differences) and gravity."""
        n = q.size
        dm = np.empty((n, n, n))  # dm[k] = dM/dq_k
        for k in range(n):
            step = np.zeros(n)
            step[k] = h
            dm[k] = (self.mass_matrix(q + step) - self.mass_matrix(q - step)) / (2 * h)
        # c_i = sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) dq_j dq_k
        coriolis = (np.einsum("kij,j,k->i", dm, dq, dq)
                    - 0.5 * np.einsum("ijk,j,k->i", dm, dq, dq))
        gravity = GRAVITY * np.einsum("k,kj->j", self.mass, self.jacobians(q)[:, 1, :])
        return coriolis + gravity

    def step(self, q, dq, target):
        """State after one control period with the PD controller aiming at `target`."""
        dt = SUBSTEP
        for _ in range(int(round(CONTROL_PERIOD / dt))):
            mass = self.mass_matrix(q)
            system = mass + np.diag(dt * self.kd + dt * dt * self.kp)
            dq = np.linalg.solve(system, mass @ dq + dt * (self.kp * (target - q)
                                                           - self.bias(q, dq)))
            q = q + dt * dq
        return q, dq


def transitions(joints, count, seed):
    """(X, Y): `count` transitions of the scenario with `joints` joints from one run of the
    robot started at rest in the zero posture. X = (s, a), shape (count, 3 * joints) with s =
    (angles, velocities); Y = s', shape (count, 2 * joints)."""
    chain = ArmChain(SCENARIOS[joints])
    rng = np.random.default_rng(seed)
    n = len(chain.names)
    q, dq = np.zeros(n), np.zeros(n)
    inputs, outputs = [], []
    for _ in range(count):
        action = rng.uniform(q - ACTION_HALF_WIDTH, q + ACTION_HALF_WIDTH)
        shifted = rng.random(n) < NOISE_SHIFT_PROBABILITY
        noise = rng.normal(np.where(shifted, NOISE_SHIFT, 0.0), NOISE_STD)
        state = np.concatenate([q, dq])
        q, dq = chain.step(q, dq, action + noise)
        inputs.append(np.concatenate([state, action]))
        outputs.append(np.concatenate([q, dq]))
    return np.array(inputs), np.array(outputs)
