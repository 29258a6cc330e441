# %% [markdown]
# Browser test: pythreejs polytope viewer (inscribing polytope of the icosahedron frame,
# with OrbitControls) -- the canvas must render non-blank and react to a mouse drag.

# %%
import numpy as np
import pythreejs as p3
from IPython.display import display
from scipy.spatial import ConvexHull

import relu_frames_nb as rf

# %%
vertices = np.asarray(rf.zoo.platonic("icosahedron").vectors, dtype="float32")
faces = ConvexHull(vertices).simplices.astype("uint32")
geometry = p3.BufferGeometry(
    attributes={
        "position": p3.BufferAttribute(vertices, normalized=False),
        "index": p3.BufferAttribute(faces.ravel(), normalized=False),
    }
)
geometry.exec_three_obj_method("computeVertexNormals")
mesh = p3.Mesh(geometry, p3.MeshLambertMaterial(color="#4477aa", side="DoubleSide"))
edges = p3.LineSegments(p3.EdgesGeometry(geometry), p3.LineBasicMaterial(color="#222222"))
camera = p3.PerspectiveCamera(position=[2.5, 1.5, 2.0], up=[0, 0, 1], aspect=1.25)
scene = p3.Scene(
    children=[mesh, edges, camera, p3.AmbientLight(intensity=0.5), p3.DirectionalLight(position=[3, 5, 1], intensity=0.6)],
    background="#ffffff",
)
viewer = p3.Renderer(
    camera=camera, scene=scene, controls=[p3.OrbitControls(controlling=camera)], width=500, height=400, antialias=True
)
display(viewer)

# %%
print("RFNB-BROWSER" + "-DONE-polytope3d")
