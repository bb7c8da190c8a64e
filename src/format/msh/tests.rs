use super::*;

/// A skinned quad with every array that carries data, two bone names
/// around a skipped one, billboard centres and control points.
pub(crate) fn every_array(version: i32) -> Mesh {
    let n = 4;
    let mask = VertexMask::POSITION
        | VertexMask::POSITION2
        | VertexMask::WEIGHTS
        | VertexMask::INDICES
        | VertexMask::NORMAL
        | VertexMask::COLOUR0
        | VertexMask::UV0
        | VertexMask::UV1
        | VertexMask::TANGENT
        | VertexMask::BINORMAL;
    let v = |i: usize| Vec3::new(i as f32, 2.0 * i as f32, -(i as f32));
    Mesh {
        version,
        mesh_type: ANIMATED_MESH,
        mask: VertexMask(mask),
        bounds: Bounds { min: Vec3::ZERO, max: Vec3::splat(3.0), radius: 5.0 },
        submeshes: vec![Submesh { min_index: 0, vertex_count: 4, index_start: 0, face_count: 2 }],
        vertex_count: n,
        positions: (0..n).map(v).collect(),
        normals: vec![Vec3::Y; n],
        tangents: vec![Vec3::X; n],
        binormals: vec![Vec3::Z; n],
        colours: vec![0xff80_4020; n],
        uv0: (0..n).map(|i| Vec2::new(i as f32 * 0.25, 0.5)).collect(),
        uv1: vec![Vec2::ONE; n],
        weights: Some(Weights {
            names: vec!["Bip01".into(), FileString::empty_with_length(-3), "Bip01 Spine".into()],
            weights: vec![[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.25, 0.75, -0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
            bones: vec![[0.0; 4], [0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.9, 0.0, 0.0, 0.0]],
        }),
        billboard_centres: vec![Vec3::ONE; n],
        indices: vec![0, 1, 2, 2, 1, 3],
        control_points: if version == CONTROL_POINT_VERSION {
            vec![ControlPoint {
                kind: "trailstart_1".into(),
                bone: "Bip01 R Hand".into(),
                extra: FileString::default(),
                point: Vec3::new(1.0, 2.0, 3.0),
            }]
        } else {
            Vec::new()
        },
        trailing: vec![0xAB, 0xCD],
    }
}

#[test]
fn every_version_round_trips_byte_for_byte() {
    for version in [2000, 2001, 2002, 1999] {
        let mesh = every_array(version);
        let bytes = mesh.to_bytes().unwrap();
        let (read, layout) = Mesh::read(&bytes, false).unwrap();
        assert_eq!(layout.submeshes, [submesh_offset(0)]);
        assert_eq!(&bytes[48..52], 0i32.to_le_bytes(), "submesh 0's min index");
        assert_eq!(read, mesh, "version {version}");
        assert_eq!(read.to_bytes().unwrap(), bytes);
        assert_eq!(layout.arrays.len(), 9);
        assert_eq!(layout.trailer, bytes.len() - 2);
        assert_eq!(layout.face(1), layout.faces + 10);
    }
}

#[test]
fn arrays_come_in_file_order_not_bit_order() {
    let mesh = every_array(2000);
    let (_, layout) = Mesh::read(&mesh.to_bytes().unwrap(), false).unwrap();
    let order: Vec<VertexArray> = layout.arrays.iter().map(|(a, _)| *a).collect();
    assert_eq!(order, VertexArray::ALL);
    assert!(layout.arrays.windows(2).all(|w| w[0].1 < w[1].1));
    // Normals start right after four positions.
    assert_eq!(layout.vertex(VertexArray::Normal, 0), layout.vertex(VertexArray::Position, 4));
}

#[test]
fn skipped_names_shorten_the_palette_and_indices_truncate() {
    let mesh = every_array(2000);
    let weights = mesh.weights.as_ref().unwrap();
    let palette: Vec<String> = weights.palette().iter().map(|n| n.to_text()).collect();
    assert_eq!(palette, ["Bip01", "Bip01 Spine"]);
    assert_eq!(weights.influences(1).collect::<Vec<_>>(), [(0, 0.5), (1, 0.5)]);
    // -0.0 stops the list like 0 does.
    assert_eq!(weights.influences(2).count(), 2);
    assert_eq!(weights.influences(3).collect::<Vec<_>>(), [(1, 1.0)]);
    assert_eq!(bone_index(f32::NAN), i64::from(i32::MIN));
    assert_eq!(bone_index(-0.5), 0);
    assert_eq!(bone_index(3e9), i64::from(i32::MIN));
}

#[test]
fn bits_without_data_and_unknown_bits_survive() {
    let mut mesh = every_array(2001);
    mesh.mask.0 |= VertexMask::FAILS_SKINNED | 1 << 20;
    let bytes = mesh.to_bytes().unwrap();
    assert_eq!(Mesh::from_bytes(&bytes).unwrap().to_bytes().unwrap(), bytes);
}

#[test]
fn errors_name_the_part_and_byte() {
    let bytes = every_array(2002).to_bytes().unwrap();
    let (_, layout) = Mesh::read(&bytes, false).unwrap();
    let normal_2 = layout.vertex(VertexArray::Normal, 2);
    let err = Mesh::from_bytes(&bytes[..normal_2 + 5]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "normal of vertex 2: normal needs 12 bytes at byte {normal_2}, but the file ends at byte {}",
            normal_2 + 5
        )
    );
    let err = Mesh::from_bytes(&bytes[..layout.bone_names[2] + 6]).unwrap_err();
    assert!(matches!(err, MshError::Malformed { place: Place::MeshBone(2), .. }), "{err}");
    let err = Mesh::from_bytes(&bytes[..layout.face(1) + 1]).unwrap_err();
    assert!(matches!(err, MshError::Malformed { place: Place::Face(1), .. }), "{err}");
    let err = Mesh::from_bytes(&bytes[..layout.control_points[0] + 3]).unwrap_err();
    assert!(matches!(err, MshError::Malformed { place: Place::ControlPoint(0), .. }), "{err}");
    assert!(matches!(Mesh::from_bytes(b"MESH"), Err(MshError::BadMagic { .. })));
    for end in 0..bytes.len() - 2 {
        let err = Mesh::from_bytes(&bytes[..end]).expect_err("every cut before the trailer fails");
        assert!(err.offset() <= end, "cut at {end}: {err}");
    }
}

#[test]
fn writing_refuses_arrays_that_disagree_with_the_mask() {
    let mut mesh = every_array(2000);
    mesh.normals.pop();
    assert!(matches!(
        mesh.to_bytes().unwrap_err().problem,
        WriteProblem::ArrayLength { what: "normal", len: 3, expected: 4 }
    ));
    let mut mesh = every_array(2000);
    mesh.mask.0 &= !VertexMask::WEIGHTS;
    assert!(matches!(mesh.to_bytes().unwrap_err().problem, WriteProblem::MaskBit { present: true, .. }));
    let mut mesh = every_array(2000);
    mesh.indices.push(0);
    assert!(matches!(mesh.to_bytes().unwrap_err().problem, WriteProblem::PartialFace(7)));
    let mut mesh = every_array(2002);
    mesh.version = 2000;
    assert!(matches!(mesh.to_bytes().unwrap_err().problem, WriteProblem::ControlPointsNeed2002 { count: 1, .. }));
}

#[test]
fn huge_counts_allocate_nothing_much() {
    let mut bytes = MSH_MAGIC.to_vec();
    for v in [2000, 0, VertexMask::POSITION as i32] {
        bytes.extend(v.to_le_bytes());
    }
    bytes.extend([0; 28]);
    bytes.extend(0i32.to_le_bytes());
    bytes.extend(i32::MAX.to_le_bytes());
    let err = Mesh::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, MshError::Malformed { place: Place::Vertex { vertex: 0, .. }, .. }), "{err}");
}
