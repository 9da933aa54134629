#!/usr/bin/env python3
# Reads a rig's exports back with each format's own tool, for RigExportTests: cv2.FileStorage for
# opencv-stereo, PyYAML with the documented keys for ROS camera_info and the Kalibr camchain, mrcal's
# Python module for the .cameramodel files. Input (stdin, JSON): {"opencv": path, "ros": [paths],
# "kalibr": path, "mrcal": [paths]}. Output (stdout, JSON): what each tool read.
import json
import sys

import cv2
import mrcal
import yaml

request = json.load(sys.stdin)
answer = {}

fs = cv2.FileStorage(request["opencv"], cv2.FILE_STORAGE_READ)
answer["opencv"] = {key: fs.getNode(key).mat().flatten().tolist() for key in ["M1", "D1", "M2", "D2", "R", "T", "E", "F", "R1", "R2", "P1", "P2", "Q"]}
answer["opencv"]["image_size"] = [int(fs.getNode("image_width").real()), int(fs.getNode("image_height").real())]
fs.release()

answer["ros"] = []
for path in request["ros"]:
    with open(path) as f:
        info = yaml.safe_load(f)
    answer["ros"].append({"K": info["camera_matrix"]["data"], "D": info["distortion_coefficients"]["data"],
                          "R": info["rectification_matrix"]["data"], "P": info["projection_matrix"]["data"],
                          "model": info["distortion_model"], "size": [info["image_width"], info["image_height"]]})

with open(request["kalibr"]) as f:
    chain = yaml.safe_load(f)
answer["kalibr"] = [{"intrinsics": cam["intrinsics"], "distortion": cam["distortion_coeffs"], "model": cam["distortion_model"],
                     "T_cn_cnm1": cam.get("T_cn_cnm1")} for name, cam in sorted(chain.items())]

answer["mrcal"] = []
for path in request["mrcal"]:
    model = mrcal.cameramodel(path)
    lensmodel, intrinsics = model.intrinsics()
    answer["mrcal"].append({"lensmodel": lensmodel, "intrinsics": intrinsics.tolist(), "rt_cam_ref": model.extrinsics_rt_fromref().tolist(),
                            "imagersize": model.imagersize().tolist()})
json.dump(answer, sys.stdout)
