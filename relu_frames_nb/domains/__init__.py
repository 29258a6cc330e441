r"""Data domains K of R^n: what a layer's input may be.

Map of the subpackage
---------------------
base        :class:`Domain` (what every domain knows about itself and the geometric questions
            the algorithms ask), the registry of spellings, :class:`LinearDescription`
radial      the paper's domains, defined by the norm: :class:`Ball`, :class:`Sphere`,
            :class:`Shell` (the donut), :class:`PositiveBall`, :class:`RealSpace`,
            :class:`Exterior`
polyhedral  :class:`Box` (e.g. pixel ranges, in ``box``), :class:`Polytope` ``{x : A x <= b}``
            (``polytope``), :class:`Hull` (the convex hull of a data set, ``hull``); ``_polyhedral``
            holds their shared helpers
samples     :class:`Samples`, a finite data set; :func:`as_domain`
spec        :func:`parse_domain` (= :meth:`Domain.from_spec`): one spelling (``ball:1``, ``box:0,1``, ...) for the CLI,
            the explorers and the IPython extension
covering    covering radii of sample sets and the paper's correction
"""

from .base import Coordinates, Domain, LinearDescription, Radial
from .covering import CoveringRadius, covering_radius, paper_correction
from .polyhedral import Box, Hull, Polytope
from .radial import Ball, Exterior, PositiveBall, RealSpace, Shell, Sphere
from .samples import Samples, as_domain
from .spec import DOMAIN_SPECS, parse_domain

__all__ = [
    "Domain",
    "Coordinates",
    "LinearDescription",
    "Radial",
    "Ball",
    "Sphere",
    "Shell",
    "PositiveBall",
    "RealSpace",
    "Exterior",
    "Box",
    "Polytope",
    "Hull",
    "Samples",
    "as_domain",
    "parse_domain",
    "DOMAIN_SPECS",
    "CoveringRadius",
    "covering_radius",
    "paper_correction",
]
