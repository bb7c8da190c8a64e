// The palette path's vertex shader, for the main passes and the prepass
// (depth, normals, shadows): each vertex skinned from its character's slot
// of the frame-wide palette. The slot's first matrix comes per instance
// through the mesh's tag; the joints were renumbered into the slot at
// load; each matrix holds the rows of the bone's 3x4 affine map (its model
// pose after its stored inverse bind), in the character's space.

#import bevy_pbr::{
    mesh_functions,
    view_transformations::position_world_to_clip,
}
#ifdef PREPASS_PIPELINE
#import bevy_pbr::prepass_io::VertexOutput
#else
#import bevy_pbr::forward_io::VertexOutput
#endif

@group(#{MATERIAL_BIND_GROUP}) @binding(101) var<storage, read> palette: array<mat3x4<f32>>;

// The attributes both pipelines bind, at their locations in each, and the
// palette's joints and weights at locations neither uses.
struct Vertex {
    @builtin(instance_index) instance_index: u32,
    @location(0) position: vec3<f32>,
#ifdef PREPASS_PIPELINE
#ifdef VERTEX_UVS_A
    @location(1) uv: vec2<f32>,
#endif
#ifdef VERTEX_UVS_B
    @location(2) uv_b: vec2<f32>,
#endif
#ifdef NORMAL_PREPASS_OR_DEFERRED_PREPASS
#ifdef VERTEX_NORMALS
    @location(3) normal: vec3<f32>,
#endif
#endif
#ifdef VERTEX_COLORS
    @location(7) color: vec4<f32>,
#endif
#else
#ifdef VERTEX_NORMALS
    @location(1) normal: vec3<f32>,
#endif
#ifdef VERTEX_UVS_A
    @location(2) uv: vec2<f32>,
#endif
#ifdef VERTEX_UVS_B
    @location(3) uv_b: vec2<f32>,
#endif
#ifdef VERTEX_COLORS
    @location(5) color: vec4<f32>,
#endif
#endif
    @location(8) joints: vec4<u32>,
    @location(9) weights: vec4<f32>,
}

// The blend of the vertex's matrices by its weights, as the client blends
// them (the weights as stored, not renormalised), as a 4x4 from the
// character's space.
fn skinned(vertex: Vertex) -> mat4x4<f32> {
    let first = mesh_functions::get_tag(vertex.instance_index);
    let rows = vertex.weights.x * palette[first + vertex.joints.x]
        + vertex.weights.y * palette[first + vertex.joints.y]
        + vertex.weights.z * palette[first + vertex.joints.z]
        + vertex.weights.w * palette[first + vertex.joints.w];
    // The rows become the columns of a column-major 4x4.
    return transpose(mat4x4<f32>(rows[0], rows[1], rows[2], vec4<f32>(0.0, 0.0, 0.0, 1.0)));
}

// A normal through the same blended matrix, then made unit length, as the
// client moves its normals.
fn skinned_normal(world_from_local: mat4x4<f32>, normal: vec3<f32>) -> vec3<f32> {
    return normalize(mat3x3<f32>(world_from_local[0].xyz, world_from_local[1].xyz, world_from_local[2].xyz) * normal);
}

@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    var out: VertexOutput;
    let world_from_local = mesh_functions::get_world_from_local(vertex.instance_index) * skinned(vertex);
    out.world_position = world_from_local * vec4<f32>(vertex.position, 1.0);
    out.position = position_world_to_clip(out.world_position.xyz);
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    out.unclipped_depth = out.position.z;
    out.position.z = min(out.position.z, 1.0);
#endif
#ifdef VERTEX_UVS_A
    out.uv = vertex.uv;
#endif
#ifdef VERTEX_UVS_B
    out.uv_b = vertex.uv_b;
#endif
#ifdef PREPASS_PIPELINE
#ifdef NORMAL_PREPASS_OR_DEFERRED_PREPASS
#ifdef VERTEX_NORMALS
    out.world_normal = skinned_normal(world_from_local, vertex.normal);
#endif
#endif
#ifdef MOTION_VECTOR_PREPASS
    out.previous_world_position = out.world_position;
#endif
#else
#ifdef VERTEX_NORMALS
    out.world_normal = skinned_normal(world_from_local, vertex.normal);
#endif
#endif
#ifdef VERTEX_COLORS
    out.color = vertex.color;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = vertex.instance_index;
#endif
#ifdef VISIBILITY_RANGE_DITHER
    out.visibility_range_dither = mesh_functions::get_visibility_range_dither_level(
        vertex.instance_index, world_from_local[3]);
#endif
    return out;
}
