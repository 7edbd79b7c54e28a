"""What makes graphmem's shipped models, apart from the code that runs them:

- ``ranker``: the fused strategy's ranker (candidates, folds, the gamma sweep), with
  ``lambdamart`` (LightGBM trees) and ``listwise`` (the linear fit) as its model kinds,
  ``samples`` (one question's labelled candidates) and ``transfer`` (each dataset held out
  of training entirely: the matrix the blend, floor and spread are chosen on);
- ``memdecider``: EMA's admission model;
- ``segmenter``: ES-Mem's LLM-free boundary model, fitted by ``logistic``;
- ``embedder``: the packaged MiniLM tuned on (question, evidence turn) pairs, with its model
  card (PyTorch, the ``train`` extra);
- ``onnx_export``: the embedder's ONNX graph that ships in ``providers/models``.

The ``graphmem eval train-ranker``, ``train-memdecider``, ``train-embedder`` and
``calibrate-segmenter`` commands
run them; nothing at search or ingest time imports this package.
"""
