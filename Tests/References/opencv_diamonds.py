#!/usr/bin/python3
"""ChArUco diamonds as OpenCV 4.6 (Debian's python3-opencv) reads them: detectMarkers, then
detectCharucoDiamond with squareMarkerLengthRate, on a PNG. Request on stdin: {"image": path,
"dictionary": "DICT_6X6_250", "rate": square / marker}; answer on stdout: {"ids": [[a, b, c, d], ...],
"corners": [[[x, y] x 4], ...]} with OpenCV 4.6's corners as it returns them (pixel centres at +0.5)."""
import json, sys

import cv2

request = json.load(sys.stdin)
image = cv2.imread(request["image"], cv2.IMREAD_GRAYSCALE)
dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, request["dictionary"]))
corners, ids, _ = cv2.aruco.detectMarkers(image, dictionary)
answer = {"ids": [], "corners": []}
if ids is not None and len(ids) >= 4:
    diamond_corners, diamond_ids = cv2.aruco.detectCharucoDiamond(image, corners, ids, float(request["rate"]))
    if diamond_ids is not None:
        answer["ids"] = [[int(v) for v in row.ravel()] for row in diamond_ids]
        answer["corners"] = [[[float(p[0][0]), float(p[0][1])] for p in c] for c in diamond_corners]
json.dump(answer, sys.stdout)
