"""evaluation/corpus.py: the wider corpus holds every other project's files once, and no detection project's."""
import json

from conftest import make_bodies_dataset

from evaluation import corpus


def test_the_corpus_leaves_out_detection_projects_and_their_relatives(tmp_path):
    bodies = ["package org.eclipse.jdt.core;\nclass A { }\n",         # a detection set's project
              "package org.apache.solr.core;\nclass S { }\n",         # Lucene's sibling
              "package org.wildfly.ee;\nclass W { }\n",               # jboss-as's successor
              "package org.apache.tomcat.util;\nclass T { }\n",
              "package org.apache.tomcat.util;\nclass T { }\n",       # the same body again: once
              "class NoPackage { }\n"]
    out = tmp_path / "corpus"
    assert corpus.write(out, [make_bodies_dataset(tmp_path, "Dataset1", bodies)]) == 2
    assert sorted(p.read_text() for p in out.glob("*.java")) == sorted([bodies[3], bodies[5]])
    assert json.loads((out / corpus.STAMP).read_text())["files"] == 2
    assert corpus.write(out, [tmp_path / "Dataset1"]) is None      # done already: nothing to do


def test_corpus_without_the_data_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(corpus, "CODREP2018", (tmp_path / "missing",))
    assert corpus.main([str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("corpus: error:") and "missing" in err[0]
