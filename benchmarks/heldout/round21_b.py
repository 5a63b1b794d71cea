"""Held-out round twenty-one (r21b): pytorch-kinematics.

Chosen by reading the library's source before any row was run under graphmend,
torch.compile or Dynamo (each row was only checked to build and run eagerly,
twice from fresh builds, in two processes, with identical results); to be
measured once and not tuned on.  Rows are :class:`benchmarks.ecosystem.Row`
(robots written as URDF and SDF strings in this module, batches of 4 to 8
configurations, seeded random joint values, targets, rotations and points,
nothing downloaded, nothing written to disk); a row whose ``modes`` is one mode
only says why in its ``notes``.

pytorch-kinematics 0.10.0 (the UM-ARM lab's differentiable robot kinematics,
pure Python on torch, with ``arm_pytorch_utilities`` and ``pytorch_seed``)
holds: parsers that build a kinematic tree of ``Frame``/``Link``/``Joint``
objects from URDF (``build_chain_from_urdf``, ``build_serial_chain_from_urdf``,
its own copy of ``urdf_parser_py``), SDF (``build_chain_from_sdf``,
``build_serial_chain_from_sdf``) and MJCF (``build_chain_from_mjcf``, which
needs ``mujoco``: not installed here, so no row uses it); ``Chain`` (a tree,
flattened at construction into per-frame static offsets, joint indices, BFS
levels and ancestor masks) with ``forward_kinematics`` (a dict of
``Transform3d`` per frame name), ``forward_kinematics_tensor`` (all frames as
one ``(frames, B, 4, 4)`` tensor, with an analytical geometric-Jacobian
backward as a custom ``autograd.Function`` when the joint values require
grad), ``clamp`` to the joint limits and ``ensure_tensor`` (dict, list or
ndarray joint values); ``SerialChain`` (a root-to-end-effector sub-chain) with
``jacobian``/``jacobian_tensor`` (the geometric Jacobian, optionally at a tool
offset) and ``calc_jacobian``; the inverse-kinematics solvers in ``ik.py``
(``PseudoInverseIK``: damped least squares with Levenberg-Marquardt damping,
several retries per problem, convergence masks in ``IKSolution``, early
stopping on convergence or on no improvement, an optional
``BacktrackingLineSearch``, joint-limit enforcement by 2-pi wrapping and
clamped refinement; ``PseudoInverseIKWithSVD``); and ``transforms``, a fork of
pytorch3d's: ``Transform3d`` (``compose``, ``inverse``, ``transform_points``,
``transform_normals``; ``Translate``, ``Scale``, ``Rotate``,
``RotateAxisAngle``), the rotation conversions (quaternions wxyz, matrices,
axis-angle, Euler angles, 6D), ``so3`` (exp/log maps, rotation angles) and
``math`` (quaternion distance, slerp, ``acos_linear_extrapolation``).  This
version has been rewritten for torch.compile in places: ``matrix_to_quaternion``
picks its candidate by ``argmax`` and ``gather`` (no boolean mask), the
small-angle branches of the axis-angle conversions are ``torch.where``, FK is a
fixed-shape kernel over precomputed index tensors, and ``IKSolution.update``
keeps its sticky convergence with ``torch.where``.  The rows call what a user
calls per control step or per batch: FK and Jacobians of a batch of joint
values, IK solves of a batch of target poses, pose errors and rotation
distances as losses.  The chains are built in the builders (an arm of six
joints, five revolute and one prismatic, all limited, with a fixed tool link
and two prismatic fingers on the last link, from URDF; a three-joint
prismatic-revolute-revolute arm from SDF); the chain, IK solver or frame
indices are arguments of the row's function, so every build has fresh ones.
Nothing on the rows' paths draws from numpy's or Python's generators: the IK
solvers' initial configurations are drawn by the builders (given as
``retry_configs``, or by ``sample_configs`` in the solver's constructor from
torch's generator), and no row's call draws at all.

The data-dependent code (file:line relative to the ``pytorch_kinematics``
package).  ``Chain.forward_kinematics`` (chain.py:542-564) fills
``frame_indices`` by ``get_all_frame_indices`` when none are given
(chain.py:591-593: ``get_frame_names`` walks the tree, ``get_frame_indices``,
an ``lru_cache`` method, builds ``torch.tensor`` of a Python list,
chain.py:497-499), calls ``ensure_tensor`` (chain.py:566-589) and
``torch.atleast_2d``, then ``forward_kinematics_tensor`` (chain.py:507-540:
``if th.requires_grad and analytical_grad`` picks ``_fk_impl`` on
``th.detach()`` wrapped in ``_FKAnalyticalBackward.apply``, chain.py:96-169,
a custom autograd Function whose backward is the geometric Jacobian, or the
plain ``_fk_impl``), and returns ``{self.idx_to_frame[fi.item()]:
tf.Transform3d(matrix=all_transforms[fi]) for fi in frame_indices}``
(chain.py:563-564): a Python loop over the elements of an index tensor with
one ``.item()`` per frame, the dict keyed by the values read.  ``_fk_impl``
(chain.py:13-93) tests ``th.shape[1] > 0`` and the Python flags
``has_revolute``/``has_prismatic`` (set at construction by ``bool((...).any())``,
chain.py:328-329), builds the joint transforms
(``axis_and_angle_to_matrix_44``/``axis_and_d_to_pris_matrix``,
transforms/rotation_conversions.py:452-524: index setitems into zeros),
``torch.where`` by joint type, and accumulates the world transforms level by
level (``T_world_link[bfs_levels[0]] = ...`` and a Python loop over the BFS
levels with index-tensor setitems, chain.py:86-91).  With dict joint values
``ensure_tensor`` (chain.py:575-588) builds ``torch.ones(...) * torch.nan``,
writes each joint by ``joint_names.index`` and tests ``if
torch.any(torch.isnan(th))`` (chain.py:584, a Python test of a tensor value
that raises on a missing joint).  ``SerialChain.forward_kinematics``
(chain.py:819-828) goes through ``convert_serial_inputs_to_chain_inputs``
(chain.py:830-860: ``get_batch_size``/``get_n_joints``, chain.py:172-199,
``isinstance`` and shape tests; ``get_frame_indices`` of the end frame when
``end_only``) and returns ``mat[name]`` or the dict.  ``Chain.clamp``
(chain.py:595-605) is ``ensure_tensor`` and ``torch.clamp`` by the limit
tensors.  ``SerialChain.jacobian`` (chain.py:761-817) tests
``torch.is_tensor`` and ``len(th.shape)``; with a tool it computes FK once,
``jacobian_tensor`` (chain.py:714-759: ``einsum``, ``cross``, ``torch.where``
by joint type, no value read), builds ``tf.Transform3d(pos=locations)``
(transforms/transform3d.py:146-218: ``pos.ndim`` and ``pos.shape[0] > 1``
tests, ``cat``), compares dtypes and devices, and corrects the linear rows
(``J.clone()``, a slice setitem).

``PseudoInverseIK.solve`` (ik.py:459-587) reads ``target_poses.get_matrix()``,
converts the targets' rotations (``matrix_to_quaternion``), allocates an
``IKSolution`` (ik.py:133-160) and shapes the initial configurations by
``q.numel()`` tests (ik.py:475-484), then loops ``for i in
range(self.max_iterations)`` under ``no_grad``: ``if not
sol.remaining.any(): break`` (ik.py:493, the truth of a tensor ends the loop),
``sol.iterations += 1`` (a Python counter), the Jacobian and end-effector pose
(``jacobian_tensor(q, True)``), the fused step ``_ik_step_kernel``
(ik.py:13-67: the pose error through ``matrix_to_quaternion``,
``quaternion_multiply``, ``quaternion_invert``, ``quaternion_to_axis_angle``;
Python tests of ``task_weight`` and ``lm_damping``; ``torch.linalg.solve``) or
``_ik_step_kernel_svd`` (ik.py:70-129: ``reg_matrix[0, 0]``,
``torch.linalg.svd``, ``D.shape[1]``), ``sol.update`` (ik.py:166-198:
tolerance masks, ``if keep_mask is None``, ``if use_keep_mask``,
``update_remaining_with_keep_mask``, sticky ``torch.where``), the no-improvement
early stopping (ik.py:507-530: ``if self.no_improve_counter is None`` on the
first pass, ``torch.where`` counters, Python tests of the mode: ``"all"``,
``"any"``, or a float ratio ``could_improve.sum(dim=1) / num_retries >
ratio``), the step (ik.py:538-549: ``BacktrackingLineSearch.do_line_search``
when a line search is given, ``isinstance(lr, float)``, ``torch.clamp`` to the
limits when ``clamp_to_limits``); after the loop a final convergence check
(ik.py:552-558), then ``if self.enforce_joint_limits and
self._has_finite_limits()`` (ik.py:584, 589-591: ``torch.isfinite(low).any()
or ...``, a tensor's truth in a Python ``or`` and ``and``) runs
``_enforce_limits`` (ik.py:609-642): ``_wrap_revolute_joints`` (ik.py:593-607:
``round`` of the 2-pi shifts and a boolean-mask read and setitem
``q_wrapped[..., self._revolute_mask] = q[..., self._revolute_mask] + ...``,
ik.py:606), ``clamp``, ten clamped refinement steps (ik.py:625-630), slice
setitems ``sol.converged[:] = False`` (ik.py:633-636) and a last
``sol.update``.  ``BacktrackingLineSearch.do_line_search`` (ik.py:222-260)
writes ``remaining[~problem_remaining] = False`` (ik.py:233, a boolean-mask
setitem), loops ``for i in range(self.max_iterations)`` with ``if not
remaining.any(): break`` (ik.py:237), evaluates FK of the trial step
(``forward_kinematics_tensor``), ``delta_pose`` (ik.py:397-428) and
``lr[~improved] *= self.decrease_factor`` (ik.py:255, a boolean-mask
read-modify-write).  The constructors (ik.py:266-366; ``sample_configs``,
ik.py:374-386, draws ``torch.rand``/``torch.randn`` or calls
``gaussian_around_config``) run in the builders.

``Rotate(R)`` (transforms/transform3d.py:551-590) with a 3x3 matrix calls
``_check_valid_rotation_matrix`` (transform3d.py:754-780: ``if
torch.compiler.is_compiling(): return`` (the check is skipped when compiled),
``torch.allclose(R @ R^T, I)`` (a Python bool from tensors), ``torch.det``,
``torch.allclose(det, 1)``, ``if not (orthogonal and no_distortion):
warnings.warn("R is not a valid rotation matrix")``), then writes R into a
repeated identity.  ``so3_log_map`` (transforms/so3.py:144-180) calls
``so3_rotation_angle`` (so3.py:40-89: ``if ((trace < -1 - eps) + (trace > 3 +
eps)).any(): raise ValueError`` (so3.py:77-78, a tensor's truth) and
``acos_linear_extrapolation`` (transforms/math.py:80-139: ``torch.empty_like``
and three boolean-mask reads and setitems, ``acos_extrap[x_mid] =
torch.acos(x[x_mid])`` and the two linear extrapolations, math.py:128-137,
tensors whose sizes are the counts of the masks)), the small-angle denominator
(``clamp``, ``sign``, ``(phi_sin == 0)``) and ``hat_inv`` (so3.py:183-214: ``if
float(ss_diff) > HAT_INV_SKEW_SYMMETRIC_TOL: raise`` (so3.py:205, a Python
float read from a tensor; when R requires grad torch warns "Converting a tensor
with requires_grad=True to a scalar may lead to unexpected behavior", once per
process)).  ``quaternion_angular_distance``
(transforms/math.py:13-35) computes ``quaternion_close`` (math.py:38-45: a 0-d
``torch.all``) and writes ``theta[close] = 0`` (math.py:34, a setitem by a 0-d
boolean mask).  ``quaternion_slerp`` (math.py:48-77) flips the quaternions in
the other hemisphere by boolean-mask setitems on its arguments
(``q2[to_invert] = -q2[to_invert]``, ``cos_theta[to_invert] = ...``,
math.py:62-64) and returns the linear interpolation ``if torch.all(cos_theta >
1.0 - 1e-6)`` (math.py:67, a tensor's truth).  ``axis_angle_to_matrix``
(transforms/rotation_conversions.py:527-544) calls ``warn(..., DeprecationWarning,
stacklevel=2)`` (rotation_conversions.py:542-543) on every call before
``axis_angle_to_quaternion`` (563-587, ``torch.where`` for small angles) and
``quaternion_to_matrix`` (44-72).

Controls (no tensor value reaches Python on the path): ``calc_jacobian``
with a tool offset and the end-effector pose (jacobian.py:1-6 ->
``SerialChain.jacobian``, ``forward_kinematics_tensor``, ``jacobian_tensor``,
``Transform3d(pos=...)``: shape, dtype and ``requires_grad`` tests only);
``delta_pose`` (ik.py:397-428, the IK pose error: ``matrix_to_quaternion``'s
``argmax``/``gather``, ``quaternion_multiply`` -> ``standardize_quaternion``
(``torch.where``), ``quaternion_invert`` (``new_tensor`` of a constant list),
``quaternion_to_axis_angle`` (``torch.where``)); and ``Transform3d`` built from
quaternions and positions, composed, inverted and applied to points and normals
(transform3d.py:146-218, 232-249, 265-293, 301-384: shape and ``ndim`` tests,
``_broadcast_bmm``'s ``len`` and dtype tests, index setitems on a clone,
``arm_pytorch_utilities.linalg.batch_batch_product``: ``einsum``, for
``transform_normals(..., batch_to_batch=True)``).

Global state on import: ``import pytorch_kinematics`` imports
``matplotlib.pyplot`` (ik.py:7, for the solver's ``debug`` plots) and
``arm_pytorch_utilities``; the MJCF parser's import fails without ``mujoco``
and is skipped by a ``try/except ImportError`` (__init__.py:4-7).  Nothing is
compiled at import (``_TORCH_COMPILE_AVAILABLE``, ik.py:10, is a string
comparison of ``torch.__version__``; ``torch.compile`` is only called for
``PseudoInverseIK(use_compile=True)``, which no row uses).

Library bugs and quirks (checked eagerly; no row depends on them): (1) a URDF
``continuous`` joint gets limits (-inf, inf) (chain.py:616-630), and the IK's
limit enforcement, on by default whenever any joint is limited, computes the
wrap centre ``(low + high) / 2`` = NaN for it (ik.py:599-606): on the arm of
these rows with its last joint continuous, every solution comes back NaN
(errors NaN, nothing converged) from ``PseudoInverseIK``, and
``PseudoInverseIKWithSVD`` raises ``linalg.svd: ... input matrix contained
non-finite values`` in the refinement; the rows' arm limits every joint.  (2)
``InverseKinematics.__init__`` rejects per-problem retry configurations of
shape (problems, retries, dof) (``retry_configs.shape[1] != self.dof``,
ik.py:363-364) that ``solve`` accepts and names in its own error message
(ik.py:475-484).  (3) ``quaternion_from_euler``
(rotation_conversions.py:724-777, used by the URDF parser for every joint and
link origin) halves its argument in place (``ai /= 2.0`` on ``unbind`` views,
749-751): a second call on the same tensor returns a different quaternion (the
parser passes fresh tensors, so chains are right), and a leaf that requires
grad raises.  (4) ``quaternion_slerp`` writes into its ``q2`` argument
(math.py:63) after ``sum(q1 * q2)`` saved it for the backward: the row's
function passes a clone, as a caller who reuses q2 must, and no gradient can be
taken (backward raises "one of the variables needed for gradient computation
has been modified by an inplace operation", even when no quaternion is flipped:
the empty-mask setitem bumps the version), so that row is inference only.
(5) ``_check_valid_rotation_matrix`` returns early under
``torch.compiler.is_compiling()`` (transform3d.py:769-770): the warning for an
invalid rotation is given eagerly and never when compiled.  (6)
``Transform3d.transform_points(points, batch_to_batch=True)`` always fails: the
points are made 3-D first (transform3d.py:323-324) and
``batch_batch_product``'s ``einsum('ijk,ik->ij')`` (arm_pytorch_utilities/
linalg.py:37) then raises "the number of subscripts in the equation (2) does
not match the number of dimensions (3)"; ``transform_normals(...,
batch_to_batch=True)`` works (the control row uses it).  (7)
``calc_jacobian`` (jacobian.py) is not re-exported by ``pytorch_kinematics``
(its ``__init__`` does not import the module): the row imports it from
``pytorch_kinematics.jacobian``.  (8) MJCF needs ``mujoco``; no row uses it.
"""

from __future__ import annotations

from typing import Any

import torch

from benchmarks.ecosystem import Built, Row, row_lookup

INFERENCE = ("inference",)

KINEMATICS = ("pytorch-kinematics", "0.10.0")

# --- robots ---------------------------------------------------------------------------------

_LIMIT = '<limit lower="{}" upper="{}" effort="10" velocity="2"/>'

#: A six-joint arm (j3 prismatic, the others revolute, all limited), a fixed tool link and two prismatic fingers
#: on the last link: a tree of 10 frames, 8 joints; its serial chain base -> tool has 6 joints.
_ARM_URDF = (
    '<robot name="r21b_arm">'
    '<link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="l4"/><link name="l5"/>'
    '<link name="l6"/><link name="tool"/><link name="finger_a"/><link name="finger_b"/>'
    '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
    '<origin xyz="0 0 0.2" rpy="0 0 0"/><axis xyz="0 0 1"/>' + _LIMIT.format(-2.8, 2.8) + '</joint>'
    '<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>'
    '<origin xyz="0 0 0.1" rpy="-1.5708 0 0"/><axis xyz="0 0 1"/>' + _LIMIT.format(-1.7, 1.7) + '</joint>'
    '<joint name="j3" type="prismatic"><parent link="l2"/><child link="l3"/>'
    '<origin xyz="0 -0.3 0" rpy="1.5708 0 0"/><axis xyz="0 0 1"/>' + _LIMIT.format(0.0, 0.25) + '</joint>'
    '<joint name="j4" type="revolute"><parent link="l3"/><child link="l4"/>'
    '<origin xyz="0.05 0 0.2" rpy="0 0.3 0"/><axis xyz="0 1 0"/>' + _LIMIT.format(-2.0, 2.0) + '</joint>'
    '<joint name="j5" type="revolute"><parent link="l4"/><child link="l5"/>'
    '<origin xyz="0 0 0.25" rpy="0 0 0.5"/><axis xyz="1 0 0"/>' + _LIMIT.format(-2.5, 2.5) + '</joint>'
    '<joint name="j6" type="revolute"><parent link="l5"/><child link="l6"/>'
    '<origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 0 1"/>' + _LIMIT.format(-3.1, 3.1) + '</joint>'
    '<joint name="tool_fixed" type="fixed"><parent link="l6"/><child link="tool"/>'
    '<origin xyz="0 0 0.08" rpy="0 0 0"/></joint>'
    '<joint name="fa" type="prismatic"><parent link="l6"/><child link="finger_a"/>'
    '<origin xyz="0 0.02 0.05" rpy="0 0 0"/><axis xyz="0 1 0"/>' + _LIMIT.format(0.0, 0.04) + '</joint>'
    '<joint name="fb" type="prismatic"><parent link="l6"/><child link="finger_b"/>'
    '<origin xyz="0 -0.02 0.05" rpy="0 0 0"/><axis xyz="0 -1 0"/>' + _LIMIT.format(0.0, 0.04) + '</joint>'
    '</robot>'
)

_SDF_INERTIAL = (
    "<inertial><mass>1.0</mass><inertia><ixx>0.01</ixx><ixy>0</ixy><ixz>0</ixz><iyy>0.01</iyy><iyz>0</iyz>"
    "<izz>0.01</izz></inertia></inertial>"
)


def _r21b_sdf_link(name: str, pose: str) -> str:
    return f'<link name="{name}">{_SDF_INERTIAL}<pose>{pose}</pose></link>'


def _r21b_sdf_joint(name: str, kind: str, parent: str, child: str, axis: str, lower: float, upper: float) -> str:
    return (f'<joint name="{name}" type="{kind}"><parent>{parent}</parent><child>{child}</child><axis><xyz>{axis}'
            f'</xyz><limit><lower>{lower}</lower><upper>{upper}</upper></limit></axis></joint>')


def _r21b_slide_sdf() -> str:
    """A gantry arm in SDF (link poses in the model frame): a prismatic slide along x, a shoulder about z and an
    elbow about y, all limited."""
    return (
        '<sdf version="1.6"><model name="r21b_slide">'
        + _r21b_sdf_link("base", "0 0 0 0 0 0") + _r21b_sdf_link("carriage", "0 0 0.1 0 0 0")
        + _r21b_sdf_link("arm", "0.2 0 0.1 0 0 0.3") + _r21b_sdf_link("wrist", "0.5 0 0.1 0 0 0.3")
        + _r21b_sdf_joint("slide", "prismatic", "base", "carriage", "1 0 0", -0.5, 0.5)
        + _r21b_sdf_joint("shoulder", "revolute", "carriage", "arm", "0 0 1", -3.0, 3.0)
        + _r21b_sdf_joint("elbow", "revolute", "arm", "wrist", "0 1 0", -2.0, 2.0)
        + "</model></sdf>"
    )


def _r21b_arm_serial() -> Any:
    import pytorch_kinematics as pk

    return pk.build_serial_chain_from_urdf(_ARM_URDF, "tool")


def _r21b_arm_tree() -> Any:
    import pytorch_kinematics as pk

    return pk.build_chain_from_urdf(_ARM_URDF)


def _r21b_within_limits(chain: Any, n: int) -> torch.Tensor:
    """``n`` joint configurations drawn uniformly within the chain's limits."""
    return chain.low + torch.rand(n, chain.n_joints) * (chain.high - chain.low)


# --- forward kinematics ---------------------------------------------------------------------


def _r21b_fk_end_run(chain: Any, th: torch.Tensor) -> torch.Tensor:
    """``chain.forward_kinematics(th)`` (end_only=True: a Transform3d of the tool frame); its (B, 4, 4) matrix."""
    return chain.forward_kinematics(th).get_matrix()


def _r21b_serial_fk_end_only(training: bool) -> Built:
    chain = _r21b_arm_serial()
    return _r21b_fk_end_run, (chain, _r21b_within_limits(chain, 8)), {}


def _r21b_fk_all_run(chain: Any, th: torch.Tensor) -> dict[str, torch.Tensor]:
    """``chain.forward_kinematics(th, end_only=False)``: every frame of the serial chain; their matrices."""
    return {name: t.get_matrix() for name, t in chain.forward_kinematics(th, end_only=False).items()}


def _r21b_serial_fk_all_links(training: bool) -> Built:
    chain = _r21b_arm_serial()
    return _r21b_fk_all_run, (chain, _r21b_within_limits(chain, 6)), {}


def _r21b_tree_fk_run(chain: Any, th: torch.Tensor, frame_indices: torch.Tensor) -> dict[str, torch.Tensor]:
    """``Chain.forward_kinematics(th, frame_indices)`` of the branched tree; the frames' matrices."""
    return {name: t.get_matrix() for name, t in chain.forward_kinematics(th, frame_indices).items()}


def _r21b_tree_fk_frame_indices(training: bool) -> Built:
    chain = _r21b_arm_tree()
    frame_indices = chain.get_frame_indices("tool", "finger_a", "finger_b", "l4")
    return _r21b_tree_fk_run, (chain, _r21b_within_limits(chain, 8), frame_indices), {}


def _r21b_tree_fk_dict_run(chain: Any, th: torch.Tensor) -> dict[str, torch.Tensor]:
    """``Chain.forward_kinematics`` of joint values given as a dict name -> (B,) tensor (the columns of th, in
    reverse order), every frame; the frames' matrices."""
    names = chain.get_joint_parameter_names()
    joints = {name: th[:, i] for i, name in reversed(list(enumerate(names)))}
    return {name: t.get_matrix() for name, t in chain.forward_kinematics(joints).items()}


def _r21b_tree_fk_joint_dict(training: bool) -> Built:
    chain = _r21b_arm_tree()
    return _r21b_tree_fk_dict_run, (chain, _r21b_within_limits(chain, 5)), {}


def _r21b_sdf_clamped_fk_run(chain: Any, th: torch.Tensor) -> dict[str, torch.Tensor]:
    """``chain.forward_kinematics(chain.clamp(th), end_only=False)``: joint values clamped to the limits first;
    every frame's matrix."""
    clamped = chain.clamp(th)
    return {name: t.get_matrix() for name, t in chain.forward_kinematics(clamped, end_only=False).items()}


def _r21b_sdf_clamped_fk(training: bool) -> Built:
    import pytorch_kinematics as pk

    chain = pk.build_serial_chain_from_sdf(_r21b_slide_sdf(), "wrist")
    th = torch.randn(6, 3) * torch.tensor([0.6, 2.5, 2.0])  # some values beyond the limits
    return _r21b_sdf_clamped_fk_run, (chain, th), {}


# --- inverse kinematics ----------------------------------------------------------------------


def _r21b_ik_run(ik: Any, target: torch.Tensor) -> tuple[Any, ...]:
    """``ik.solve(Transform3d(matrix=target))``; returns the solution's iteration count, joint solutions
    (problems, retries, dof), convergence masks and position/rotation errors."""
    from pytorch_kinematics import Transform3d

    sol = ik.solve(Transform3d(matrix=target))
    return sol.iterations, sol.solutions, sol.converged, sol.converged_any, sol.remaining, sol.err_pos, sol.err_rot


def _r21b_ik_targets(chain: Any, n: int = 4) -> torch.Tensor:
    """Reachable target poses: FK of configurations within the limits (n, 4, 4)."""
    with torch.no_grad():
        return chain.forward_kinematics(_r21b_within_limits(chain, n)).get_matrix()


def _r21b_ik_any_converged(training: bool) -> Built:
    import pytorch_kinematics as pk

    chain = _r21b_arm_serial()
    target = _r21b_ik_targets(chain)
    ik = pk.PseudoInverseIK(chain, retry_configs=_r21b_within_limits(chain, 3), max_iterations=30,
                            early_stopping_any_converged=True, early_stopping_no_improvement=None)
    return _r21b_ik_run, (ik, target), {}


def _r21b_ik_line_search(training: bool) -> Built:
    import pytorch_kinematics as pk

    chain = _r21b_arm_serial()
    target = _r21b_ik_targets(chain)
    ik = pk.PseudoInverseIK(chain, retry_configs=_r21b_within_limits(chain, 3), max_iterations=12,
                            line_search=pk.BacktrackingLineSearch(max_lr=1.0, max_iterations=4),
                            early_stopping_any_converged=True, early_stopping_no_improvement=None, lm_damping=0.5)
    return _r21b_ik_run, (ik, target), {}


def _r21b_ik_svd_uniform(training: bool) -> Built:
    import pytorch_kinematics as pk

    chain = _r21b_arm_serial()
    target = _r21b_ik_targets(chain)
    limits = torch.stack([chain.low, chain.high], dim=1)
    ik = pk.PseudoInverseIKWithSVD(chain, num_retries=4, joint_limits=limits, max_iterations=20,
                                   clamp_to_limits=True, early_stopping_no_improvement=0.5, lm_damping=0.05)
    return _r21b_ik_run, (ik, target), {}


# --- transforms -----------------------------------------------------------------------------


def _r21b_rotate_points_run(R: torch.Tensor, xyz: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    """``Rotate(R).compose(Translate(xyz)).transform_points(points)``."""
    from pytorch_kinematics.transforms import Rotate, Translate

    return Rotate(R).compose(Translate(xyz)).transform_points(points)


def _r21b_rotate_check_points(training: bool) -> Built:
    from pytorch_kinematics.transforms import random_rotations

    return _r21b_rotate_points_run, (random_rotations(4), torch.randn(4, 3), torch.randn(4, 10, 3)), {}


def _r21b_so3_log_map(training: bool) -> Built:
    from pytorch_kinematics.transforms import random_rotations, so3_exp_map, so3_log_map

    R = random_rotations(8)
    R[0] = torch.eye(3)  # the identity: the extrapolated branch of acos
    R[1] = so3_exp_map(torch.tensor([[1e-3, -2e-3, 5e-4]]))[0]  # a small rotation
    return so3_log_map, (R,), {}


def _r21b_quaternion_distance(training: bool) -> Built:
    from pytorch_kinematics.transforms import quaternion_angular_distance, random_quaternions

    return quaternion_angular_distance, (random_quaternions(8), random_quaternions(8)), {}


def _r21b_slerp_run(q1: torch.Tensor, q2: torch.Tensor, t: float) -> torch.Tensor:
    """``quaternion_slerp(q1, q2.clone(), t)``: slerp writes into its second argument."""
    from pytorch_kinematics.transforms import quaternion_slerp

    return quaternion_slerp(q1, q2.clone(), t)


def _r21b_quaternion_slerp(training: bool) -> Built:
    from pytorch_kinematics.transforms import random_quaternions

    q2 = random_quaternions(6)
    q2[::2] = -q2[::2]  # three of six in the other hemisphere
    return _r21b_slerp_run, (random_quaternions(6), q2), {"t": 0.3}


def _r21b_axis_angle_to_matrix(training: bool) -> Built:
    from pytorch_kinematics.transforms.rotation_conversions import axis_angle_to_matrix

    axis_angle = torch.randn(8, 3)
    axis_angle[0] = torch.tensor([1e-7, -2e-7, 0.0])  # below the 1e-6 threshold: the small-angle series
    return axis_angle_to_matrix, (axis_angle,), {}


# --- controls -------------------------------------------------------------------------------


def _r21b_calc_jacobian_tool(training: bool) -> Built:
    from pytorch_kinematics.jacobian import calc_jacobian  # not re-exported by the package

    chain = _r21b_arm_serial()
    th = _r21b_within_limits(chain, 8)
    return calc_jacobian, (chain, th), {"tool": torch.randn(8, 3) * 0.05, "ret_eef_pose": True}


def _r21b_delta_pose_run(m: torch.Tensor, target_pos: torch.Tensor, target_wxyz: torch.Tensor) -> torch.Tensor:
    """``pytorch_kinematics.ik.delta_pose(m, target_pos, target_wxyz)``: the (N*M, 6, 1) pose error."""
    from pytorch_kinematics.ik import delta_pose

    return delta_pose(m, target_pos, target_wxyz)[0]


def _r21b_delta_pose(training: bool) -> Built:
    from pytorch_kinematics.transforms import random_quaternions, random_rotations

    m = torch.zeros(4, 3, 4, 4)
    m[..., :3, :3] = random_rotations(12).reshape(4, 3, 3, 3)
    m[..., :3, 3] = torch.randn(4, 3, 3)
    m[..., 3, 3] = 1.0
    return _r21b_delta_pose_run, (m, torch.randn(4, 3), random_quaternions(4)), {}


def _r21b_transform_run(quat: torch.Tensor, pos: torch.Tensor, other: torch.Tensor, points: torch.Tensor,
                        normals: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``t = Transform3d(rot=quat, pos=pos).compose(Transform3d(matrix=other))``; returns
    ``t.inverse().transform_points(points)``, ``t.transform_normals(normals)`` and
    ``t.transform_normals(normals[:, 0], batch_to_batch=True)`` (one normal per transform)."""
    from pytorch_kinematics.transforms import Transform3d

    t = Transform3d(rot=quat, pos=pos).compose(Transform3d(matrix=other))
    return (t.inverse().transform_points(points), t.transform_normals(normals),
            t.transform_normals(normals[:, 0], batch_to_batch=True))


def _r21b_transform3d_control(training: bool) -> Built:
    from pytorch_kinematics.transforms import random_quaternions, random_rotations

    other = torch.eye(4).repeat(6, 1, 1)
    other[:, :3, :3] = random_rotations(6)
    other[:, :3, 3] = torch.randn(6, 3)
    args = (random_quaternions(6), torch.randn(6, 3), other, torch.randn(6, 5, 3), torch.randn(6, 5, 3))
    return _r21b_transform_run, args, {}


# --- rows -----------------------------------------------------------------------------------

_ARM = (
    "the arm: a URDF string of 6 joints (5 revolute, j3 prismatic, all limited) with a fixed tool link and two "
    "prismatic fingers on the last link"
)
_FK = (
    "`Chain.forward_kinematics` (chain.py:542-564): `ensure_tensor` (566-589: `isinstance` tests), `atleast_2d`, "
    "`forward_kinematics_tensor` (507-540: `if th.requires_grad and analytical_grad` picks `_fk_impl` on "
    "`th.detach()` + `_FKAnalyticalBackward.apply` (96-169, a custom autograd Function) or the plain `_fk_impl`), "
    "`_fk_impl` (13-93: `th.shape[1] > 0`, Python flags `has_revolute`/`has_prismatic`, "
    "`axis_and_angle_to_matrix_44`/`axis_and_d_to_pris_matrix` (rotation_conversions.py:452-524: index setitems), "
    "`torch.where` by joint type, index-tensor setitem of the root level and a Python loop over the BFS levels with "
    "index-tensor setitems, 86-91), then `{self.idx_to_frame[fi.item()]: Transform3d(matrix=...) for fi in "
    "frame_indices}` (563-564: a Python loop over an index tensor, one `.item()` per frame keying the dict)"
)
_SERIAL = (
    "`SerialChain.forward_kinematics` (chain.py:819-828) -> `convert_serial_inputs_to_chain_inputs` (830-860: "
    "`get_batch_size`/`get_n_joints` (172-199: `isinstance`, shapes), `get_frame_indices` (497-499, `lru_cache`, "
    "`torch.tensor` of a list) when end_only, the partial-joints test false)"
)
_IK_TRAIN = (
    "inference only: the solver runs its own iterations under no_grad and returns an int count, masks and "
    "solutions without a gradient path"
)
_SOLVE = (
    "`PseudoInverseIK.solve` (ik.py:459-587): `get_matrix`, `matrix_to_quaternion` of the targets, `IKSolution` "
    "(133-160), `q.numel()` tests (475-484), `for i in range(max_iterations)` under no_grad: `if not "
    "sol.remaining.any(): break` (493, a tensor's truth ends the loop), `sol.iterations += 1`, "
    "`jacobian_tensor(q, True)` (chain.py:714-759 over `forward_kinematics_tensor`)"
)
_UPDATE = (
    "`sol.update` (166-198: tolerance masks, `if keep_mask is None`, `if use_keep_mask`, "
    "`update_remaining_with_keep_mask`, sticky `torch.where`)"
)
_LIMITS = (
    "after the loop the final check (552-558) and `if self.enforce_joint_limits and self._has_finite_limits()` "
    "(584, 589-591: `torch.isfinite(low).any() or ...`, a tensor's truth) -> `_enforce_limits` (609-642: "
    "`_wrap_revolute_joints` (593-607: `round`, a boolean-mask read and setitem `q_wrapped[..., "
    "self._revolute_mask] = ...`, 606), `clamp`, ten clamped refinement steps of the kernel, slice setitems "
    "`sol.converged[:] = False` (633-636), a last `sol.update`)"
)


def _rows() -> list[Row]:
    return [
        Row(
            "r21b_kinematics_serial_fk_end_only", *KINEMATICS,
            "wrapper: pytorch_kinematics.build_serial_chain_from_urdf(arm, 'tool').forward_kinematics(th (8, 6)) "
            "(end_only=True: a Transform3d); returns its matrix (8, 4, 4)",
            ("pytorch_kinematics",), _r21b_serial_fk_end_only,
            notes="end-effector FK of a batch of joint configurations within the limits; " + _ARM + "; in training "
            "th requires grad (FK then runs on detached values and the analytical Jacobian backward carries the "
            "gradient)",
            patterns=_SERIAL + ", " + _FK + " (one frame: one `.item()`)",
        ),
        Row(
            "r21b_kinematics_serial_fk_all_links", *KINEMATICS,
            "wrapper: the arm's serial chain base -> tool .forward_kinematics(th (6, 6), end_only=False); returns "
            "{frame name: matrix (6, 4, 4)} for its 8 frames",
            ("pytorch_kinematics",), _r21b_serial_fk_all_links,
            notes="FK of every link of the serial chain (for collision checking or visualization); " + _ARM
            + "; in training th requires grad",
            patterns=_SERIAL + " (frame_indices None), " + _FK + " (`get_all_frame_indices` (591-593: "
            "`get_frame_names` walks the tree, the `lru_cache`d `get_frame_indices`); 8 `.item()` reads)",
        ),
        Row(
            "r21b_kinematics_tree_fk_frame_indices", *KINEMATICS,
            "wrapper: pytorch_kinematics.build_chain_from_urdf(arm).forward_kinematics(th (8, 8), frame_indices "
            "(4,) int64 = get_frame_indices('tool', 'finger_a', 'finger_b', 'l4')); returns {frame name: matrix "
            "(8, 4, 4)}",
            ("pytorch_kinematics",), _r21b_tree_fk_frame_indices, frozen=("2",),
            notes="FK of a branched chain (the arm with its two fingers: 10 frames, 8 joints) for chosen frames, the "
            "indices computed once in the builder as a user caches them; in training th requires grad",
            patterns=_FK + " (four frames: a loop over the int64 index tensor, four `.item()` reads naming the "
            "outputs)",
        ),
        Row(
            "r21b_kinematics_tree_fk_joint_dict", *KINEMATICS,
            "wrapper: the arm tree's forward_kinematics({joint name: th[:, i]} for its 8 joints, in reverse order) "
            "with th (5, 8); returns {frame name: matrix (5, 4, 4)} for all 10 frames",
            ("pytorch_kinematics",), _r21b_tree_fk_joint_dict,
            notes="FK of joint values given by name (the dict form the docs show); in training th requires grad "
            "(the joint columns are written into the chain's order by index setitems)",
            patterns="`Chain.ensure_tensor` dict branch (chain.py:575-588: `get_dict_elem_shape`, `torch.ones(...) "
            "* torch.nan`, `joint_names.index`, index setitems `th[..., jnt_idx] = joint_position`, `if "
            "torch.any(torch.isnan(th))` (584, a Python test of a tensor value that raises on a missing joint)), "
            + _FK + " (`get_all_frame_indices`; 10 `.item()` reads)",
        ),
        Row(
            "r21b_kinematics_sdf_clamped_fk", *KINEMATICS,
            "wrapper: c = pytorch_kinematics.build_serial_chain_from_sdf(gantry SDF, 'wrist'); "
            "c.forward_kinematics(c.clamp(th (6, 3)), end_only=False); returns {frame name: matrix (6, 4, 4)} for "
            "its 4 frames",
            ("pytorch_kinematics",), _r21b_sdf_clamped_fk,
            notes="a chain from an SDF string (a prismatic slide, a shoulder about z and an elbow about y, all "
            "limited; link poses in the model frame), joint values N(0, (0.6, 2.5, 2.0)) clamped to the limits "
            "before FK (some are beyond them); in training th requires grad (zero gradient where clamped)",
            patterns="`Chain.clamp` (chain.py:595-605: `ensure_tensor`, `torch.clamp` by the limit tensors), "
            + _SERIAL + " (frame_indices None), " + _FK + " (4 `.item()` reads)",
        ),
        Row(
            "r21b_kinematics_ik_any_converged_break", *KINEMATICS,
            "wrapper: pytorch_kinematics.PseudoInverseIK(arm serial chain, retry_configs (3, 6) within the limits, "
            "max_iterations=30, early_stopping_any_converged=True, early_stopping_no_improvement=None)"
            ".solve(Transform3d(matrix=targets (4, 4, 4))); returns (iterations, solutions (4, 3, 6), converged "
            "(4, 3), converged_any (4,), remaining (4,), err_pos (4, 3), err_rot (4, 3))",
            ("pytorch_kinematics",), _r21b_ik_any_converged, modes=INFERENCE,
            notes=_IK_TRAIN + ". Damped least squares (Cholesky solve, LM damping 0.1) for 4 reachable targets (FK "
            "of configurations within the limits), 3 retries each; every problem converges within a few "
            "iterations and the loop breaks early on the remaining test (7 of at most 30); then the joint limits "
            "are enforced",
            patterns=_SOLVE + ", `_ik_step_kernel` (13-67: the pose error through `matrix_to_quaternion`, "
            "`quaternion_multiply`, `quaternion_invert`, `quaternion_to_axis_angle`; Python tests of `task_weight` "
            "and `lm_damping`; `torch.linalg.solve`), " + _UPDATE + " with the keep mask (converged problems leave "
            "`remaining`), `lr` a float (`q.add(dq, alpha=lr)`), " + _LIMITS,
        ),
        Row(
            "r21b_kinematics_ik_line_search", *KINEMATICS,
            "wrapper: pytorch_kinematics.PseudoInverseIK(arm serial chain, retry_configs (3, 6), max_iterations=12, "
            "line_search=BacktrackingLineSearch(max_lr=1.0, max_iterations=4), early_stopping_any_converged=True, "
            "early_stopping_no_improvement=None, lm_damping=0.5).solve(targets (4, 4, 4)); returns (iterations, "
            "solutions, converged, converged_any, remaining, err_pos, err_rot)",
            ("pytorch_kinematics",), _r21b_ik_line_search, modes=INFERENCE,
            notes=_IK_TRAIN + ". The solver with a backtracking line search per step (the step size halved for the "
            "retries whose error does not fall by 0.01), heavier LM damping; 4 reachable targets, 3 retries; one "
            "problem stays in `remaining`, so the loop runs all 12 iterations",
            patterns=_SOLVE + ", `_ik_step_kernel`, " + _UPDATE + ", `BacktrackingLineSearch.do_line_search` "
            "(222-260: `remaining[~problem_remaining] = False` (233, a boolean-mask setitem), `for i in "
            "range(max_iterations)`: `if not remaining.any(): break` (237), `forward_kinematics_tensor` of the trial "
            "step, `delta_pose` (397-428), `lr[~improved] *= decrease_factor` (255, a boolean-mask read-modify-"
            "write)), `lr.unsqueeze(1)`, " + _LIMITS,
        ),
        Row(
            "r21b_kinematics_ik_svd_uniform_ratio", *KINEMATICS,
            "wrapper: pytorch_kinematics.PseudoInverseIKWithSVD(arm serial chain, num_retries=4, joint_limits (6, 2) "
            "= the chain's, max_iterations=20, clamp_to_limits=True, early_stopping_no_improvement=0.5, "
            "lm_damping=0.05).solve(targets (4, 4, 4)); returns (iterations, solutions (4, 4, 6), converged, "
            "converged_any, remaining, err_pos, err_rot)",
            ("pytorch_kinematics",), _r21b_ik_svd_uniform, modes=INFERENCE,
            notes=_IK_TRAIN + ". The SVD variant with 4 initial configurations drawn uniformly within the limits by "
            "the constructor (torch's generator, in the builder), each step clamped to the limits, and problems "
            "dropped when fewer than half their retries still improve (patience 2): the loop breaks after 11 of 20 "
            "iterations with one problem of four unconverged (position error 0.05)",
            patterns=_SOLVE + ", `_ik_step_kernel_svd` (70-129: `reg_matrix[0, 0]`, the `lm_damping` test, "
            "`torch.linalg.svd`, `D.shape[1]`, `diag_embed`), " + _UPDATE + ", the no-improvement stopping "
            "(507-530: `if self.no_improve_counter is None` on the first pass, `torch.where` counters, Python tests "
            "of the mode, a float ratio: `could_improve.sum(dim=1) / num_retries > 0.5`, "
            "`update_remaining_with_keep_mask`), `torch.clamp` to the limits each step (548-549), " + _LIMITS,
        ),
        Row(
            "r21b_kinematics_rotate_check_points", *KINEMATICS,
            "wrapper: pytorch_kinematics.transforms.Rotate(R (4, 3, 3)).compose(Translate(xyz (4, 3)))"
            ".transform_points(points (4, 10, 3)); returns (4, 10, 3)",
            ("pytorch_kinematics",), _r21b_rotate_check_points,
            notes="rigid transforms of point sets from rotation matrices (valid rotations from random_rotations: no "
            "warning); in training R, xyz and the points require grad",
            patterns="`Rotate.__init__` (transforms/transform3d.py:551-590: `torch.is_tensor`, `R.to`, shape tests, "
            "`_check_valid_rotation_matrix` (754-780: `if torch.compiler.is_compiling(): return`, "
            "`torch.allclose(R @ R^T, I)` (a Python bool from tensors), `torch.det`, `torch.allclose(det, 1)`, `if "
            "not (orthogonal and no_distortion): warnings.warn`), `mat[:, :3, :3] = R`), `Translate` (477-499: "
            "`_handle_input`, 650-704: `x.dim() == 2`), `compose` (232-249: `_broadcast_bmm`, 724-751: `len` and "
            "dtype tests, `bmm`), `transform_points` (301-349: `dim` tests, `cat` of ones, `_broadcast_bmm`, the "
            "`eps` test, division by the homogeneous coordinate)",
        ),
        Row(
            "r21b_kinematics_so3_log_map", *KINEMATICS,
            "function: pytorch_kinematics.transforms.so3_log_map(R (8, 3, 3)); returns (8, 3)",
            ("pytorch_kinematics",), _r21b_so3_log_map,
            notes="rotation matrices to rotation vectors; R[0] is the identity and R[1] a rotation of 2e-3 rad (the "
            "cosine beyond 1 - 1e-4: the linear extrapolation of acos), the others random; in training R requires "
            "grad (and `float(ss_diff)` of a tensor that requires grad makes torch warn 'Converting a tensor with "
            "requires_grad=True to a scalar', so3.py:205)",
            patterns="`so3_log_map` (transforms/so3.py:144-180) -> `so3_rotation_angle` (40-89: shape test, trace, "
            "`if ((trace < -1 - eps) + (trace > 3 + eps)).any(): raise` (77-78, a tensor's truth), "
            "`acos_linear_extrapolation` (math.py:80-139: Python bound tests, `empty_like`, boolean masks, "
            "`acos_extrap[x_mid] = torch.acos(x[x_mid])` and two extrapolated boolean-mask setitems (128-137: sizes "
            "from the masks' counts))), the small-angle denominator (`clamp`, `sign`, `(phi_sin == 0)`), `hat_inv` "
            "(183-214: `if float(ss_diff) > HAT_INV_SKEW_SYMMETRIC_TOL: raise` (205, a Python float read from a "
            "tensor))",
        ),
        Row(
            "r21b_kinematics_quaternion_angular_distance", *KINEMATICS,
            "function: pytorch_kinematics.transforms.quaternion_angular_distance(q1 (8, 4), q2 (8, 4)) (random unit "
            "quaternions); returns (8,)",
            ("pytorch_kinematics",), _r21b_quaternion_distance,
            notes="the angle between pairs of orientations (an orientation loss); the pairs are not all close, so "
            "the mask is false and nothing is zeroed; in training both require grad",
            patterns="`quaternion_angular_distance` (transforms/math.py:13-35: `clamp`, `atan2`, `quaternion_close` "
            "(38-45: a 0-d `torch.all(dist < eps)`), `theta[close] = 0` (34, a setitem by a 0-d boolean mask))",
        ),
        Row(
            "r21b_kinematics_quaternion_slerp", *KINEMATICS,
            "wrapper: pytorch_kinematics.transforms.quaternion_slerp(q1 (6, 4), q2.clone() (6, 4), t=0.3); returns "
            "(6, 4)",
            ("pytorch_kinematics",), _r21b_quaternion_slerp, modes=INFERENCE,
            notes="inference only: slerp is not differentiable (its boolean-mask setitem writes into q2 after "
            "`sum(q1 * q2)` saved it for the backward: backward raises 'modified by an inplace operation', even "
            "with an empty mask). Spherical interpolation between orientations, three of the six q2 in the other "
            "hemisphere (flipped by the function); slerp writes into its q2 argument, so the wrapper passes a "
            "clone",
            patterns="`quaternion_slerp` (transforms/math.py:48-77: `to_invert = cos_theta < 0`, boolean-mask "
            "setitems `q2[to_invert] = -q2[to_invert]` and `cos_theta[to_invert] = -cos_theta[to_invert]` (62-64), "
            "`if torch.all(cos_theta > 1.0 - 1e-6)` (67, a tensor's truth picks the linear branch; false here), "
            "`acos`, `sin` weights)",
        ),
        Row(
            "r21b_kinematics_axis_angle_to_matrix_deprecated", *KINEMATICS,
            "function: pytorch_kinematics.transforms.rotation_conversions.axis_angle_to_matrix(axis_angle (8, 3)); "
            "returns (8, 3, 3)",
            ("pytorch_kinematics",), _r21b_axis_angle_to_matrix,
            notes="rotation vectors to matrices through quaternions (still exported by the conversions module, "
            "deprecated in favour of axis_and_angle_to_matrix_33); row 0 is a rotation of 2.2e-7 rad (the "
            "small-angle series; an exact zero would give NaN gradients through the other `torch.where` branch); in "
            "training the rotation vectors require grad",
            patterns="`axis_angle_to_matrix` (transforms/rotation_conversions.py:527-544: `warn('This is deprecated "
            "...', DeprecationWarning, stacklevel=2)` on every call (542-543), `axis_angle_to_quaternion` (563-587: "
            "`norm`, `torch.where` of the small-angle series), `quaternion_to_matrix` (44-72))",
        ),
        Row(
            "r21b_kinematics_calc_jacobian_tool_control", *KINEMATICS,
            "function: pytorch_kinematics.jacobian.calc_jacobian(arm serial chain, th (8, 6), tool=offsets (8, 3), "
            "ret_eef_pose=True); returns (J (8, 6, 6), the tool pose (8, 4, 4))",
            ("pytorch_kinematics",), _r21b_calc_jacobian_tool,
            notes="control: the geometric Jacobian at a tool offset (per configuration) and the tool pose; in "
            "training th and the offsets require grad (the Jacobian's gradient to th through the analytical FK "
            "backward)",
            patterns="control: no tensor value reaches Python. `calc_jacobian` (jacobian.py:1-6) -> "
            "`SerialChain.jacobian` (chain.py:761-817: `torch.is_tensor`, `len(th.shape)`, the `locations` test, "
            "`forward_kinematics_tensor` (507-540: the `requires_grad` test), `jacobian_tensor` (714-759: `einsum`, "
            "`cross`, `torch.where` by joint type), `Transform3d(pos=locations)` (transforms/transform3d.py:146-218: "
            "`ndim` and shape tests), dtype/device tests, `J.clone()`, a slice setitem)",
        ),
        Row(
            "r21b_kinematics_delta_pose_control", *KINEMATICS,
            "wrapper: pytorch_kinematics.ik.delta_pose(m (4, 3, 4, 4) poses, target_pos (4, 3), target_wxyz (4, 4))"
            "[0]; returns the pose error (12, 6, 1)",
            ("pytorch_kinematics",), _r21b_delta_pose,
            notes="control: the IK pose error (position difference and the axis-angle of the relative rotation) of "
            "4 problems x 3 candidate poses; in training the poses and targets require grad",
            patterns="control: no tensor value reaches Python. `delta_pose` (ik.py:397-428: `matrix_to_quaternion` "
            "(rotation_conversions.py:101-154: `_sqrt_positive_part`, candidates, `argmax` and `gather`), "
            "`quaternion_multiply` (396-410) -> `standardize_quaternion` (360-372: `torch.where`), "
            "`quaternion_invert` (413-426: `new_tensor` of a constant list), `quaternion_to_axis_angle` (590-613: "
            "`atan2`, `torch.where`), the `out is None` test, `cat`)",
        ),
        Row(
            "r21b_kinematics_transform3d_control", *KINEMATICS,
            "wrapper: t = Transform3d(rot=quat (6, 4), pos (6, 3)).compose(Transform3d(matrix=other (6, 4, 4))); "
            "returns (t.inverse().transform_points(points (6, 5, 3)), t.transform_normals(normals (6, 5, 3)), "
            "t.transform_normals(normals[:, 0], batch_to_batch=True))",
            ("pytorch_kinematics",), _r21b_transform3d_control,
            notes="control: batched rigid transforms from quaternions and positions, composed with homogeneous "
            "matrices, inverted and applied to points and normals (also one normal per transform, batch_to_batch); in "
            "training every input requires grad",
            patterns="control: no tensor value reaches Python. `Transform3d.__init__` (transforms/transform3d.py:"
            "146-218: `ndim`/shape tests, `cat`, `quaternion_to_matrix` for a 4-vector rot), `compose` (232-249: "
            "`_broadcast_bmm`, 724-751), `inverse` (276-293: `_invert_transformation_matrix`, 265-274: `clone`, "
            "slice setitems), `transform_points` (301-349: `dim` tests, `_broadcast_bmm`), `transform_normals` "
            "(351-384: "
            "`inverse`, `_broadcast_bmm`; with `batch_to_batch`: `arm_pytorch_utilities.linalg.batch_batch_product`, "
            "an `einsum`)",
        ),
    ]


ROWS: tuple[Row, ...] = tuple(_rows())
get = row_lookup(ROWS, "held-out round twenty-one (b)")
