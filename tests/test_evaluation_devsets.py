"""evaluation/devsets.py: what a development set holds (one version of each class, projects by package)."""
import pytest
from conftest import make_bodies_dataset

from evaluation import devsets
from evaluation.devsets import identity


@pytest.mark.parametrize("text, expected", [
    ("package a.b;\npublic final class Foo {}", ("a.b", "Foo")),
    ("package a.b;\n\n/** doc */\n@Deprecated\ninterface Bar {}", ("a.b", "Bar")),
    ("package a;\nrecord R(int x) {}", ("a", "R")),
    ("class NoPackage {}", ("", "NoPackage")),
    ("package a;\n// nothing declared", ("a", "X.java")),
])
def test_identity_is_package_and_first_type(text, expected):
    assert identity(text, "X.java") == expected


def test_codrep2018_sets_keep_one_version_of_each_class(tmp_path):
    bodies = ["package org.eclipse.jdt.core;\nclass A { int x; }\n",
              "package org.eclipse.jdt.core;\nclass A { int x, y; }\n",      # another version of A
              "package org.eclipse.ui;\nclass B { }\n",
              "package org.apache.lucene.index;\nclass C { }\n",
              "package com.example;\nclass D { }\n"]                          # no project
    sets = {s.name: s for s in devsets.codrep2018_sets([make_bodies_dataset(tmp_path, "Dataset1", bodies)])}
    assert [text for _, text in sets["eclipse"].files] == [bodies[0], bodies[2]]
    assert len(sets["lucene"].files) == 1 and sets["spring"].files == []
