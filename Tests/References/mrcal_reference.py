#!/usr/bin/python3
"""mrcal (Debian's python3-mrcal) as the independent reference for MarkerKit's projection uncertainty and
projection difference (issue 19). Reads a JSON request on stdin, writes a JSON answer on stdout.

Request: {"cameras": [camera, ...], "pixels": [[x, y], ...], "distance": mm or null (infinity),
          "diff": true|false}
camera:  {"width", "height", "spacing" (mm), "columns", "rows" (inner corners),
          "intrinsics": [fx, fy, cx, cy, k1, k2, p1, p2, k3],
          "views": [{"corners": [[x, y], ...] row by row, "rvec": [3], "tvec": [3]}, ...]}
Each camera is solved again by mrcal from MarkerKit's corners, seeded with MarkerKit's solution, with what
OpenCV's calibrateCamera solves (LENSMODEL_OPENCV5, no regularization, no outlier rejection, a flat board).
Answer: {"cameras": [{"intrinsics": [...], "sigmas": [...], "noise": px}], "diff": [...] (with "diff")}"""
import json
import sys

import numpy as np
import mrcal


def solve(camera):
    w, h = camera["width"], camera["height"]
    cols, rows = camera["columns"], camera["rows"]
    views = camera["views"]
    observations = np.zeros((len(views), rows, cols, 3))
    frames = np.zeros((len(views), 6))
    for i, view in enumerate(views):
        corners = np.array(view["corners"], dtype=float).reshape(rows, cols, 2)
        observations[i, :, :, :2] = corners
        observations[i, :, :, 2] = 1.0
        frames[i, :3] = view["rvec"]
        frames[i, 3:] = view["tvec"]
    indices = np.array([[i, 0, -1] for i in range(len(views))], dtype=np.int32)
    inputs = dict(
        intrinsics=np.array([camera["intrinsics"]], dtype=float),
        extrinsics_rt_fromref=np.zeros((0, 6)),
        frames_rt_toref=frames,
        points=None,
        observations_board=observations,
        indices_frame_camintrinsics_camextrinsics=indices,
        observations_point=None,
        indices_point_camintrinsics_camextrinsics=None,
        lensmodel="LENSMODEL_OPENCV5",
        calobject_warp=None,
        imagersizes=np.array([[w, h]], dtype=np.int32),
        calibration_object_spacing=float(camera["spacing"]),
        do_optimize_intrinsics_core=True,
        do_optimize_intrinsics_distortions=True,
        do_optimize_extrinsics=True,
        do_optimize_frames=True,
        do_optimize_calobject_warp=False,
        do_apply_regularization=False,
        verbose=False,
    )
    mrcal.optimize(**inputs, do_apply_outlier_rejection=False)
    return mrcal.cameramodel(optimization_inputs=inputs, icam_intrinsics=0), inputs


def main():
    request = json.load(sys.stdin)
    pixels = np.array(request["pixels"], dtype=float)
    distance = request.get("distance")
    answer = {"cameras": []}
    models = []
    for camera in request["cameras"]:
        model, inputs = solve(camera)
        models.append(model)
        v = mrcal.unproject(pixels, *model.intrinsics(), normalize=True)
        if distance is None:
            sigmas = mrcal.projection_uncertainty(v, model=model, atinfinity=True, what="worstdirection-stdev")
        else:
            sigmas = mrcal.projection_uncertainty(v * distance, model=model, what="worstdirection-stdev")
        residuals = mrcal.residuals_chessboard(inputs).ravel()
        answer["cameras"].append({"intrinsics": model.intrinsics()[1].tolist(), "sigmas": np.asarray(sigmas).tolist(),
                                  "noise": float(np.std(residuals))})
    if request.get("diff") and len(models) == 2:
        # mrcal's defaults: the implied transform fitted weighted by both models' uncertainties.
        difflen, diff, q0, _ = mrcal.projection_diff(models, gridn_width=request.get("gridn_width", 16), distance=distance)
        answer["diff"] = {"q0": np.asarray(q0).reshape(-1, 2).tolist(), "difference": np.asarray(difflen).ravel().tolist()}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
