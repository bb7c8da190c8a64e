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
  characters OUT_DIR
      Build two characters as modders make them, each an armature named
      "Armature" with a mesh "Body" skinned to it, and export each with the
      exporter's defaults: OUT_DIR/mixamo.glb, Mixamo's bone names in a
      T-pose, 1.8 m tall, the armature object scaled 0.01 and its bones in
      centimetres (as a Mixamo FBX imports); OUT_DIR/blender_lr.glb, bones
      named hips, upper_arm.L, ... in an A-pose, in metres. Both face -Y in
      Blender (+Z in glTF). Gives each file's bones: name, parent, and rest
      head and tail in glTF's axes (Y up, metres, the armature object's
      transform applied).
  props OUT_DIR
      Build what a modder brings into the game, each with a painted texture
      (a PNG Blender saves) on UVs, and export each with the exporter's
      defaults: OUT_DIR/sword.glb, a sword of two parts (a textured blade,
      a grip of plain colour); OUT_DIR/fighter.glb, the Mixamo-named
      character with UVs and a textured material, some vertices weighted
      to four bones. Gives each file, the texture's two colours and the
      fighter's bones (as `characters` gives them).
  rest IN.glb
      Import IN.glb with Blender's defaults and give its first armature's
      bones as `characters` gives them.
"""

import json
import math
import os
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


# A humanoid's joints in Blender's axes (Z up, facing -Y, metres) for a
# figure FIGURE_HEIGHT tall: each by role (a side's roles end in .L or .R)
# with its parent's role and its head. A naming below gives the roles its
# rig has their bone names; the arms' joints depend on the rest pose.
FIGURE_HEIGHT = 1.75
TRUNK = [
    ("hips", None, (0.0, 0.0, 1.0)),
    ("spine", "hips", (0.0, 0.0, 1.1)),
    ("spine1", "spine", (0.0, 0.0, 1.25)),
    ("spine2", "spine1", (0.0, 0.0, 1.37)),
    ("neck", "spine2", (0.0, 0.0, 1.5)),
    ("head", "neck", (0.0, 0.0, 1.6)),
    ("head_top", "head", (0.0, 0.0, FIGURE_HEIGHT)),
]
UPPER_ARM, FOREARM = 0.28, 0.25


def side_joints(side, sign, arm_down_degrees):
    """One side's joints: Blender's +X is the character's left."""
    shoulder = (sign * 0.18, 0.0, 1.45)
    down = math.radians(arm_down_degrees)
    along = Vector((sign * math.cos(down), 0.0, -math.sin(down)))
    elbow = Vector(shoulder) + along * UPPER_ARM
    wrist = elbow + along * FOREARM
    joints = [
        ("shoulder", "spine2", (sign * 0.05, 0.0, 1.45)),
        ("arm", "shoulder", shoulder),
        ("forearm", "arm", tuple(elbow)),
        ("hand", "forearm", tuple(wrist)),
        ("upleg", "hips", (sign * 0.1, 0.0, 0.95)),
        ("leg", "upleg", (sign * 0.1, 0.0, 0.5)),
        ("foot", "leg", (sign * 0.1, 0.0, 0.08)),
        ("toe", "foot", (sign * 0.1, -0.12, 0.02)),
        ("toe_end", "toe", (sign * 0.1, -0.2, 0.02)),
    ]
    on_side = {role for role, _, _ in joints}
    return [
        (f"{role}.{side}", f"{parent}.{side}" if parent in on_side else parent, head)
        for role, parent, head in joints
    ]


# Namings: a role's bone name, {side} being Left or Right and {s} L or R.
MIXAMO = {
    role: f"mixamorig:{name}"
    for role, name in {
        "hips": "Hips", "spine": "Spine", "spine1": "Spine1", "spine2": "Spine2", "neck": "Neck",
        "head": "Head", "head_top": "HeadTop_End", "shoulder": "{side}Shoulder", "arm": "{side}Arm",
        "forearm": "{side}ForeArm", "hand": "{side}Hand", "upleg": "{side}UpLeg", "leg": "{side}Leg",
        "foot": "{side}Foot", "toe": "{side}ToeBase", "toe_end": "{side}Toe_End",
    }.items()
}
RIG = {role: name for role, name in MIXAMO.items() if role not in ("spine2", "head_top", "toe_end")}
BLENDER_LR = {
    "hips": "hips", "spine": "spine", "spine1": "chest", "neck": "neck", "head": "head",
    "shoulder": "shoulder.{s}", "arm": "upper_arm.{s}", "forearm": "forearm.{s}", "hand": "hand.{s}",
    "upleg": "thigh.{s}", "leg": "shin.{s}", "foot": "foot.{s}", "toe": "toe.{s}",
}


def role_of(joint):
    return joint.partition(".")[0]


def bone_name(naming, joint):
    role, _, s = joint.partition(".")
    return naming[role].format(side={"L": "Left", "R": "Right"}.get(s, ""), s=s)


def humanoid(naming, height, arm_down_degrees):
    """The bones (name, parent, head, role) of the roles the naming has, for
    a figure `height` tall; a bone whose parent's role has no name hangs
    from the nearest ancestor that has one."""
    joints = TRUNK + side_joints("L", 1.0, arm_down_degrees) + side_joints("R", -1.0, arm_down_degrees)
    parents = {joint: parent for joint, parent, _ in joints}

    def named(joint):
        while joint is not None and role_of(joint) not in naming:
            joint = parents[joint]
        return joint and bone_name(naming, joint)

    k = height / FIGURE_HEIGHT
    return [
        (bone_name(naming, joint), named(parent), tuple(c * k for c in head), role_of(joint))
        for joint, parent, head in joints
        if role_of(joint) in naming
    ]


def rig_bones(arm_down_degrees):
    return humanoid(RIG, FIGURE_HEIGHT, arm_down_degrees)


def build_armature(name, bones, scale=1.0):
    """An armature object scaled `scale` whose bones (heads in world metres)
    point at their first child (ends go on)."""
    data = bpy.data.armatures.new(name)
    armature = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(armature)
    bpy.context.view_layer.objects.active = armature
    bpy.ops.object.mode_set(mode="EDIT")
    heads = {bone: Vector(head) for bone, _, head, _ in bones}
    for bone, parent, head, _ in bones:
        edit = data.edit_bones.new(bone)
        edit.head = heads[bone] / scale
        child = next((b for b, p, _, _ in bones if p == bone), None)
        if child is not None and (heads[child] - heads[bone]).length > 1e-4:
            edit.tail = heads[child] / scale
        else:
            parent_dir = heads[bone] - heads[parent] if parent else Vector((0, 0, 1))
            edit.tail = (heads[bone] + parent_dir.normalized() * 0.08) / scale
        if parent:
            edit.parent = data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    armature.scale = (scale, scale, scale)
    bpy.context.view_layer.update()
    return armature


def build_rig(name, arm_down_degrees):
    return build_armature(name, rig_bones(arm_down_degrees))


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
    order = [name for name, *_ in rig_bones(0.0)]
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


# The radius, in metres, of the tube around each role's bone in a body.
RADII = {
    "hips": 0.14, "spine": 0.13, "spine1": 0.14, "spine2": 0.14, "neck": 0.05, "head": 0.1,
    "shoulder": 0.05, "arm": 0.05, "forearm": 0.04, "hand": 0.04,
    "upleg": 0.08, "leg": 0.055, "foot": 0.045, "toe": 0.04,
}
SEGMENTS = 8


def tube(head, tail, radius):
    """A ring of vertices around the head, then one around the tail."""
    axis = (tail - head).normalized()
    u = axis.orthogonal().normalized()
    v = axis.cross(u)
    turns = (2.0 * math.pi * i / SEGMENTS for i in range(SEGMENTS))
    circle = [(u * math.cos(a) + v * math.sin(a)) * radius for a in turns]
    return [head + c for c in circle] + [tail + c for c in circle]


def tube_faces(first):
    """The sides and the two caps, facing out, of the tube from `first`."""
    n = SEGMENTS
    sides = [(first + i, first + (i + 1) % n, first + n + (i + 1) % n, first + n + i) for i in range(n)]
    return sides + [tuple(first + n - 1 - i for i in range(n)), tuple(first + n + i for i in range(n))]


def build_body(armature, bones, scale):
    """A mesh "Body", child of the armature, skinned to it: a tube around
    each bone whose role has a radius, its head ring weighted half to the
    bone and half to its parent, its tail ring wholly to the bone."""
    verts, faces, weights = [], [], []
    for name, parent, _, role in bones:
        if role not in RADII:
            continue
        bone = armature.data.bones[name]
        faces += tube_faces(len(verts))
        verts += tube(bone.head_local, bone.tail_local, RADII[role] / scale)
        at_head = [(name, 0.5), (parent, 0.5)] if parent else [(name, 1.0)]
        weights += [at_head] * SEGMENTS + [[(name, 1.0)]] * SEGMENTS
    mesh = bpy.data.meshes.new("Body")
    mesh.from_pydata([tuple(v) for v in verts], [], faces)
    mesh.update()
    body = bpy.data.objects.new("Body", mesh)
    bpy.context.scene.collection.objects.link(body)
    body.parent = armature
    for index, shares in enumerate(weights):
        for bone, weight in shares:
            group = body.vertex_groups.get(bone) or body.vertex_groups.new(name=bone)
            group.add([index], weight, "REPLACE")
    body.modifiers.new("Armature", "ARMATURE").object = armature
    return body


def in_gltf(point):
    """A point in Blender's axes (Z up) in glTF's (Y up)."""
    return [round(c, 6) + 0.0 for c in (point.x, point.z, -point.y)]


def rest_bones(armature):
    world = armature.matrix_world
    return [
        {
            "name": bone.name,
            "parent": bone.parent and bone.parent.name,
            "head": in_gltf(world @ bone.head_local),
            "tail": in_gltf(world @ bone.tail_local),
        }
        for bone in armature.data.bones
    ]


# Each character: its naming, height, arms' angle below horizontal at rest,
# and the armature object's scale.
CHARACTERS = [
    ("mixamo", MIXAMO, 1.8, 0.0, 0.01),
    ("blender_lr", BLENDER_LR, FIGURE_HEIGHT, 45.0, 1.0),
]


def characters(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    result = {}
    for key, naming, height, down, scale in CHARACTERS:
        empty_scene()
        bones = humanoid(naming, height, down)
        armature = build_armature("Armature", bones, scale)
        build_body(armature, bones, scale)
        path = os.path.join(out_dir, f"{key}.glb")
        assert bpy.ops.export_scene.gltf(filepath=path) == {"FINISHED"}
        result[key] = {"file": path, "bones": rest_bones(armature)}
    return result


# The texture's top and bottom halves, sRGB bytes.
PAINT = [(200, 40, 30), (30, 60, 200)]


def painted_material(name, out_dir):
    """A material showing a 64 x 64 PNG, top half PAINT[0], bottom PAINT[1]."""
    image = bpy.data.images.new(name + "_paint", 64, 64)
    pixels = []
    for row in range(64):
        r, g, b = PAINT[1] if row < 32 else PAINT[0]
        pixels += [r / 255, g / 255, b / 255, 1.0] * 64
    image.pixels = pixels
    image.filepath_raw = os.path.join(out_dir, name + "_paint.png")
    image.file_format = "PNG"
    image.save()
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    nodes = material.node_tree.nodes
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = image
    material.node_tree.links.new(texture.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    return material


def plain_material(name, rgba):
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = rgba
    return material


def cube(name, size, location, material):
    bpy.ops.mesh.primitive_cube_add(location=location)
    part = bpy.context.active_object
    part.name = name
    part.scale = size
    bpy.ops.object.transform_apply(scale=True)
    part.data.materials.append(material)
    return part


def sword(out_dir):
    empty_scene()
    blade = cube("Sword", (0.03, 0.01, 0.45), (0, 0, 0.55), painted_material("Blade", out_dir))
    grip = cube("Grip", (0.02, 0.02, 0.1), (0, 0, 0.0), plain_material("Grip", (0.1, 0.05, 0.02, 1.0)))
    bpy.ops.object.select_all(action="DESELECT")
    grip.select_set(True)
    blade.select_set(True)
    bpy.context.view_layer.objects.active = blade
    bpy.ops.object.join()
    path = os.path.join(out_dir, "sword.glb")
    assert bpy.ops.export_scene.gltf(filepath=path) == {"FINISHED"}
    return path


def fighter(out_dir):
    """The Mixamo character with UVs (each tube's ring around U, along V)
    and a painted material; the head rings of tubes with a grandparent
    weighted to four bones (0.4, 0.3, 0.2, 0.1)."""
    empty_scene()
    key, naming, height, down, scale = CHARACTERS[0]
    bones = humanoid(naming, height, down)
    armature = build_armature("Armature", bones, scale)
    body = build_body(armature, bones, scale)
    mesh = body.data
    uvs = mesh.uv_layers.new(name="UVMap")
    for loop in mesh.loops:
        ring, around = divmod(loop.vertex_index, SEGMENTS)
        uvs.data[loop.index].uv = (around / SEGMENTS, 0.25 if ring % 2 == 0 else 0.75)
    mesh.materials.append(painted_material("Skin", out_dir))
    parents = {name: parent for name, parent, _, _ in bones}
    for vertex in mesh.vertices:
        groups = [body.vertex_groups[g.group].name for g in vertex.groups]
        if len(groups) != 2:
            continue
        grand = parents.get(groups[1])
        great = grand and parents.get(grand)
        if not great:
            continue
        chain = groups + [grand, great]
        for bone, weight in zip(chain, (0.4, 0.3, 0.2, 0.1)):
            group = body.vertex_groups.get(bone) or body.vertex_groups.new(name=bone)
            group.add([vertex.index], weight, "REPLACE")
    path = os.path.join(out_dir, "fighter.glb")
    assert bpy.ops.export_scene.gltf(filepath=path) == {"FINISHED"}
    return path, rest_bones(armature)


def props(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    sword_path = sword(out_dir)
    fighter_path, bones = fighter(out_dir)
    return {"sword": sword_path, "fighter": fighter_path, "fighter_bones": bones, "paint": PAINT}


def rest_of(path):
    import_glb(path)
    return {"bones": rest_bones(armatures()[0])}


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
    elif command == "characters":
        result = characters(rest[0])
    elif command == "props":
        result = props(rest[0])
    elif command == "rest":
        result = rest_of(rest[0])
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
