// The toon pass of the game's characters (`AnimateToonShade`), as far as
// it is known: the light's ramp looked up by how far a surface turns to
// the light, times the light's diffuse colour, plus its ambient, times
// the surface's colour (texture times diffuse), in the frame buffer's
// sRGB values as Direct3D 9 computes them. The ramp images are not
// public: `ramp` holds two levels and the turn where one gives way to
// the other. A skin material shows `skin` where its texture's alpha is
// low (the client's race colour), when `skin.w` is 1.

#import bevy_pbr::{
    pbr_functions::alpha_discard,
    pbr_fragment::pbr_input_from_standard_material,
    mesh_view_bindings::lights,
}

#ifdef PREPASS_PIPELINE
#import bevy_pbr::{
    prepass_io::{VertexOutput, FragmentOutput},
    pbr_deferred_functions::deferred_output,
}
#else
#import bevy_pbr::{
    forward_io::{VertexOutput, FragmentOutput},
    pbr_functions::main_pass_post_lighting_processing,
}
#endif

struct Toon {
    // The light's ambient colour (sRGB, 0..1).
    ambient: vec4<f32>,
    // The light's diffuse colour (sRGB, 0..1).
    diffuse: vec4<f32>,
    // x: the ramp in shade, y: lit, z: the cosine where shade gives way.
    ramp: vec4<f32>,
    // The skin colour (sRGB), used where w is 1.
    skin: vec4<f32>,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<uniform> toon: Toon;

fn to_srgb(c: vec3<f32>) -> vec3<f32> {
    return pow(max(c, vec3(0.0)), vec3(1.0 / 2.2));
}

fn to_linear(c: vec3<f32>) -> vec3<f32> {
    return pow(max(c, vec3(0.0)), vec3(2.2));
}

@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) is_front: bool) -> FragmentOutput {
    var pbr_input = pbr_input_from_standard_material(in, is_front);
    // The texture's alpha, before an opaque material's is set to 1.
    let coverage = pbr_input.material.base_color.a;
    pbr_input.material.base_color = alpha_discard(pbr_input.material, pbr_input.material.base_color);
#ifdef PREPASS_PIPELINE
    let out = deferred_output(in, pbr_input);
#else
    var out: FragmentOutput;
    var turn = 1.0;
    if lights.n_directional_lights > 0u {
        turn = dot(normalize(pbr_input.N), lights.directional_lights[0].direction_to_light);
    }
    let ramp = select(toon.ramp.x, toon.ramp.y, turn > toon.ramp.z);
    let light = min(toon.ambient.rgb + toon.diffuse.rgb * ramp, vec3(1.0));
    let base = pbr_input.material.base_color;
    var surface = to_srgb(base.rgb);
    if toon.skin.w > 0.5 {
        surface = mix(toon.skin.rgb, surface, coverage);
    }
    out.color = vec4(to_linear(surface * light), base.a);
    out.color = main_pass_post_lighting_processing(pbr_input, out.color);
#endif
    return out;
}
