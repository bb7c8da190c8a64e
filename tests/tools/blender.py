"""Blender (the `bpy` module) as a user runs it on the project's glTF files.

Run by tests/tools/mod.rs as `python3 blender.py COMMAND ...`; every command
prints one JSON object on its last line of output.

  pose IN.glb ACTION MS [MS ...]
      Import IN.glb with Blender's defaults, play ACTION and give every
      bone's head (world, Blender's Z-up metres) at each time, and what the
      import built (armatures, bones, empties, actions).
  roundtrip IN.glb OUT.glb default|recommended
      Import IN.glb, then export it again: with the exporter's defaults, or
      with the settings the README recommends (no forced sampling, custom
      properties included).
  rigs OUT_T.glb OUT_A.glb MS [MS ...]
      Build two Mixamo-named armatures with the same motion, one resting in
      a T-pose and one in an A-pose, export each, and give the world
      direction from each limb's joint to the next at each time.
"""

import json
import math
import sys

import bpy
from mathutils import Matrix, Quaternion, Vector

FPS = 24


def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = FPS, 1.0
    return scene


def import_glb(path):
    scene = empty_scene()
    assert bpy.ops.import_scene.gltf(filepath=path) == {"FINISHED"}
    return scene


def armatures():
    return [o for o in bpy.data.objects if o.type == "ARMATURE"]


def play(armature, action_name):
    """Make one action the only one playing on the armature."""
    data = armature.animation_data
    for track in data.nla_tracks:
        track.mute = True
    data.action = bpy.data.actions[action_name]
    if data.action_slot is None:
        data.action_slot = data.action.slots[0]


def go_to(scene, ms):
    frame = ms / 1000.0 * FPS
    scene.frame_set(int(frame), subframe=frame - int(frame))


def pose(path, action, times):
    scene = import_glb(path)
    found = armatures()
    heads = {}
    if found:
        armature = found[0]
        play(armature, action)
        for ms in times:
            go_to(scene, ms)
            for bone in armature.pose.bones:
                heads.setdefault(bone.name, []).append(list(armature.matrix_world @ bone.head))
    return {
        "armatures": len(found),
        "bones": len(found[0].data.bones) if found else 0,
        "empties": sum(o.type == "EMPTY" for o in bpy.data.objects),
        "actions": sorted(a.name for a in bpy.data.actions),
        "heads": heads,
    }


def roundtrip(source, target, settings):
    import_glb(source)
    options = {"filepath": target, "export_format": "GLB"}
    if settings == "recommended":
        options.update(export_force_sampling=False, export_extras=True)
    assert bpy.ops.export_scene.gltf(**options) == {"FINISHED"}
    return {"written": target}


# A Mixamo-like rig in Blender's axes (Z up, facing -Y, metres): each bone
# by name with its parent and head; the arms' tails depend on the rest pose.
SPINE = [
    ("Hips", None, (0.0, 0.0, 1.0)),
    ("Spine", "Hips", (0.0, 0.0, 1.1)),
    ("Spine1", "Spine", (0.0, 0.0, 1.25)),
    ("Neck", "Spine1", (0.0, 0.0, 1.5)),
    ("Head", "Neck", (0.0, 0.0, 1.6)),
]
UPPER_ARM, FOREARM = 0.28, 0.25


def side_bones(side, sign, arm_down_degrees):
    """One side's bones: Blender's +X is the character's left."""
    prefix = "Left" if sign > 0 else "Right"
    shoulder = (sign * 0.18, 0.0, 1.45)
    down = math.radians(arm_down_degrees)
    along = Vector((sign * math.cos(down), 0.0, -math.sin(down)))
    elbow = Vector(shoulder) + along * UPPER_ARM
    wrist = elbow + along * FOREARM
    return [
        (f"{prefix}Shoulder", "Spine1", (sign * 0.05, 0.0, 1.45)),
        (f"{prefix}Arm", f"{prefix}Shoulder", shoulder),
        (f"{prefix}ForeArm", f"{prefix}Arm", tuple(elbow)),
        (f"{prefix}Hand", f"{prefix}ForeArm", tuple(wrist)),
        (f"{prefix}UpLeg", "Hips", (sign * 0.1, 0.0, 0.95)),
        (f"{prefix}Leg", f"{prefix}UpLeg", (sign * 0.1, 0.0, 0.5)),
        (f"{prefix}Foot", f"{prefix}Leg", (sign * 0.1, 0.0, 0.08)),
        (f"{prefix}ToeBase", f"{prefix}Foot", (sign * 0.1, -0.12, 0.02)),
    ]


def rig_bones(arm_down_degrees):
    bones = SPINE + side_bones("L", 1.0, arm_down_degrees) + side_bones("R", -1.0, arm_down_degrees)
    return [(f"mixamorig:{name}", parent and f"mixamorig:{parent}", head) for name, parent, head in bones]


def build_rig(name, arm_down_degrees):
    """An armature whose bones point at their first child (ends go on)."""
    bones = rig_bones(arm_down_degrees)
    data = bpy.data.armatures.new(name)
    armature = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(armature)
    bpy.context.view_layer.objects.active = armature
    bpy.ops.object.mode_set(mode="EDIT")
    heads = {bone: Vector(head) for bone, _, head in bones}
    for bone, parent, head in bones:
        edit = data.edit_bones.new(bone)
        edit.head = heads[bone]
        child = next((b for b, p, _ in bones if p == bone), None)
        if child is not None and (heads[child] - heads[bone]).length > 1e-4:
            edit.tail = heads[child]
        else:
            parent_dir = heads[bone] - heads[parent] if parent else Vector((0, 0, 1))
            edit.tail = heads[bone] + parent_dir.normalized() * 0.08
        if parent:
            edit.parent = data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    return armature


def limb_targets(phase):
    """World directions the limbs point in at a phase of the motion: arms
    swinging forward and back, elbows bending, legs striding."""
    swing = math.sin(phase)
    targets = {}
    for prefix, sign in (("Left", 1.0), ("Right", -1.0)):
        arm = Vector((sign * 0.35, -0.6 * swing * sign, -1.0)).normalized()
        targets[f"mixamorig:{prefix}Arm"] = arm
        targets[f"mixamorig:{prefix}ForeArm"] = (arm + Vector((0.0, -0.5, 0.3))).normalized()
        leg = Vector((0.0, 0.5 * swing * sign, -1.0)).normalized()
        targets[f"mixamorig:{prefix}UpLeg"] = leg
        targets[f"mixamorig:{prefix}Leg"] = (leg + Vector((0.0, 0.35, 0.0))).normalized()
    return targets


def animate(armature, frames):
    """Keys every frame: each limb turned, in armature space, from where it
    rests to its target direction; the hips walk forward (-Y)."""
    bpy.context.view_layer.objects.active = armature
    bpy.ops.object.mode_set(mode="POSE")
    action = bpy.data.actions.new("walk")
    armature.animation_data_create().action = action
    order = [name for name, _, _ in rig_bones(0.0)]
    for frame in frames:
        bpy.context.scene.frame_set(frame)
        targets = limb_targets(2.0 * math.pi * frame / frames[-1])
        for name in order:
            bone = armature.pose.bones[name]
            rest = bone.bone.matrix_local
            if name.endswith("Hips"):
                bone.location = Vector((0.0, 0.0, 0.0))
                bone.matrix = Matrix.Translation((0.0, -0.05 * frame, 1.0)) @ rest.to_quaternion().to_matrix().to_4x4()
                bone.keyframe_insert("location", frame=frame)
            elif name in targets:
                rest_dir = (rest.to_quaternion() @ Vector((0.0, 1.0, 0.0))).normalized()
                turn = rest_dir.rotation_difference(targets[name])
                rotation = turn @ rest.to_quaternion()
                bone.matrix = Matrix.Translation(bone.head) @ rotation.to_matrix().to_4x4()
            bpy.context.view_layer.update()
            bone.keyframe_insert("rotation_quaternion", frame=frame)
    bpy.ops.object.mode_set(mode="OBJECT")
    return action


def rigs(t_path, a_path, times):
    frames = list(range(0, 25))
    directions = {}
    for path, down, key in ((t_path, 0.0, "t"), (a_path, 45.0, "a")):
        scene = empty_scene()
        armature = build_rig("rig", down)
        animate(armature, frames)
        options = {"filepath": path, "export_format": "GLB", "export_force_sampling": False}
        assert bpy.ops.export_scene.gltf(**options) == {"FINISHED"}
        seen = {}
        for ms in times:
            go_to(scene, ms)
            heads = {b.name: armature.matrix_world @ b.head for b in armature.pose.bones}
            for parent, child in LIMBS:
                step = (heads[f"mixamorig:{child}"] - heads[f"mixamorig:{parent}"]).normalized()
                seen.setdefault(f"{parent}>{child}", []).append(list(step))
        directions[key] = seen
    return {"directions": directions}


LIMBS = [
    ("LeftArm", "LeftForeArm"),
    ("LeftForeArm", "LeftHand"),
    ("RightArm", "RightForeArm"),
    ("RightForeArm", "RightHand"),
    ("LeftUpLeg", "LeftLeg"),
    ("LeftLeg", "LeftFoot"),
    ("RightUpLeg", "RightLeg"),
    ("RightLeg", "RightFoot"),
]


def main(argv):
    command, rest = argv[0], argv[1:]
    if command == "pose":
        result = pose(rest[0], rest[1], [float(t) for t in rest[2:]])
    elif command == "roundtrip":
        result = roundtrip(rest[0], rest[1], rest[2])
    elif command == "rigs":
        result = rigs(rest[0], rest[1], [float(t) for t in rest[2:]])
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
