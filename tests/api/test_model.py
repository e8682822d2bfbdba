"""``mindspore.Model`` train / eval / predict, callbacks, metrics and the minimal
``mindspore.dataset``: an SGD step equals numpy's, training lowers the loss (PyNative and
GRAPH_MODE), eval's metrics equal numpy's over the same batches. Dataset behavior (column
names, dtypes, batching, sizes) was checked against MindSpore 2.10."""
import numpy as np
import pytest

import mindspore as ms
import mindspore.dataset as ds
from mindspore import Model, Tensor, nn
from mindspore.train.callback import Callback, LossMonitor

pytestmark = pytest.mark.usefixtures("module_daemon_home")
RNG = np.random.default_rng(9)
X = RNG.standard_normal((12, 3)).astype(np.float32)
TRUE_W = np.array([[1.5], [-2.0], [0.5]], np.float32)
Y = (X @ TRUE_W + 0.3).astype(np.float32)


def regression(**kw):
    net = nn.Dense(3, 1)
    return net, Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), learning_rate=0.05), **kw)


def batches(size=4):
    return ds.NumpySlicesDataset((X, Y), column_names=["x", "y"], shuffle=False).batch(size)


def test_one_step_is_sgd():
    net, model = regression()
    w, b = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    x, y = X[:4], Y[:4]
    model.train(1, [(x, y)])
    err = x @ w.T + b - y                                   # MSELoss: mean(err ** 2)
    gw, gb = 2 * err.T @ x / err.size, 2 * err.sum(0) / err.size
    np.testing.assert_allclose(net.weight.asnumpy(), w - 0.05 * gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b - 0.05 * gb, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_train_lowers_the_loss(mode):
    ms.set_context(mode=mode)
    try:
        net, model = regression(metrics={"loss"})
        before = model.eval(batches())["loss"]
        model.train(15, batches())
        after = model.eval(batches())["loss"]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert after < before * 0.2, (before, after)


def test_eval_metrics_equal_numpy():
    net, model = regression(metrics={"loss", "mae", "mse"})
    got = model.eval(batches(5))
    pred = net(Tensor(X)).asnumpy()
    losses = [np.mean((pred[i:i + 5] - Y[i:i + 5]) ** 2) for i in range(0, 12, 5)]
    assert set(got) == {"loss", "mae", "mse"}
    np.testing.assert_allclose(got["loss"], np.mean(losses), rtol=1e-5)
    np.testing.assert_allclose(got["mae"], np.mean(np.abs(pred - Y)), rtol=1e-5)
    np.testing.assert_allclose(got["mse"], np.mean((pred - Y) ** 2), rtol=1e-5)
    np.testing.assert_allclose(model.predict(Tensor(X)).asnumpy(), pred, rtol=1e-6)
    with pytest.raises(ValueError, match="metrics"):
        regression()[1].eval(batches())


def test_accuracy():
    logits = RNG.standard_normal((10, 4)).astype(np.float32)
    labels = RNG.integers(0, 4, 10).astype(np.int32)
    net = nn.Dense(4, 4)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  metrics={"Accuracy": nn.Accuracy(), "acc": "accuracy"})
    got = model.eval(ds.NumpySlicesDataset((logits, labels), shuffle=False).batch(3))
    want = np.mean(net(Tensor(logits)).asnumpy().argmax(1) == labels)
    assert got == {"Accuracy": pytest.approx(want), "acc": pytest.approx(want)}
    onehot = ms.train.Accuracy()
    onehot.update(Tensor(logits), Tensor(np.eye(4, dtype=np.float32)[labels]))
    assert onehot.eval() == pytest.approx(np.mean(logits.argmax(1) == labels))


class Recorder(Callback):
    def __init__(self, stop_at=None):
        self.events, self.stop_at = [], stop_at

    def on_train_begin(self, run_context):
        self.events.append("begin")

    def step_end(self, run_context):   # the older name: called through on_train_step_end
        p = run_context.original_args()
        self.events.append((p.cur_epoch_num, p.cur_step_num, float(p.net_outputs.asnumpy())))
        if p.cur_step_num == self.stop_at:
            run_context.request_stop()

    def on_train_end(self, run_context):
        self.events.append("end")


def test_callbacks(capsys):
    _, model = regression()
    rec = Recorder()
    model.train(2, batches(6), callbacks=[rec, LossMonitor(2)])
    assert rec.events[0] == "begin" and rec.events[-1] == "end"
    assert [e[:2] for e in rec.events[1:-1]] == [(1, 1), (1, 2), (2, 3), (2, 4)]
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"epoch: {e} step: 2, loss is {rec.events[2 * e][2]}" for e in (1, 2)]
    stopper = Recorder(stop_at=3)
    model.train(5, batches(6), callbacks=stopper)
    assert [e[1] for e in stopper.events[1:-1]] == [1, 2, 3]


def test_numpy_slices_dataset():
    d = ds.NumpySlicesDataset({"a": X, "b": Y[:, 0]}, shuffle=False)
    assert d.get_col_names() == ["a", "b"] and d.get_dataset_size() == 12
    row = next(iter(d.create_dict_iterator()))
    assert isinstance(row["a"], Tensor) and row["b"].shape == ()
    first = next(iter(d.create_tuple_iterator(output_numpy=True)))
    np.testing.assert_array_equal(first[0], X[0])
    assert ds.NumpySlicesDataset([1.0, 2.0], shuffle=False).get_col_names() == ["column_0"]
    assert next(iter(ds.NumpySlicesDataset([1.0, 2.0], shuffle=False)))[0].dtype is ms.float64
    assert [t[0].shape for t in d.batch(5)] == [(5, 3), (5, 3), (2, 3)]
    assert d.batch(5, drop_remainder=True).get_dataset_size() == 2
    ms.set_seed(1)
    shuffled = [r[0] for r in ds.NumpySlicesDataset(X).create_tuple_iterator(output_numpy=True)]
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, X))
    ms.set_seed(1)
    again = [r[0] for r in ds.NumpySlicesDataset(X).create_tuple_iterator(output_numpy=True)]
    np.testing.assert_array_equal(shuffled, again)


def test_generator_dataset():
    def gen():
        for i in range(5):
            yield np.array([i], np.float32), np.array(i % 2, np.int32)
    g = ds.GeneratorDataset(gen, ["x", "y"]).batch(2)
    assert g.get_dataset_size() == 3
    assert [r["y"].asnumpy().tolist() for r in g.create_dict_iterator()] == [[0, 1], [0, 1], [0]]

    class Source:
        def __getitem__(self, i):
            return X[i], Y[i]

        def __len__(self):
            return 12
    rows = list(ds.GeneratorDataset(Source(), ["x", "y"], shuffle=False).create_tuple_iterator(output_numpy=True))
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), X)
    typed = next(iter(ds.GeneratorDataset([(np.float32(1.5), 2)], ["a", "b"], shuffle=False)))
    assert (typed[0].dtype, typed[1].dtype) == (ms.float32, ms.int64)
    with pytest.raises(TypeError, match="GeneratorDataset: source"):
        ds.GeneratorDataset(3)


def test_model_checkpoint_and_time_monitor(tmp_path, capsys):
    from mindspore.train.callback import CheckpointConfig, ModelCheckpoint, TimeMonitor
    net, model = regression()
    ckpt = ModelCheckpoint("reg", str(tmp_path), CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2))
    model.train(2, batches(4), callbacks=[ckpt, TimeMonitor()])     # 3 steps per epoch: saves at 2, 4, 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reg-2_1.ckpt", "reg-2_3.ckpt"]
    restored = nn.Dense(3, 1)
    ms.load_checkpoint(str(tmp_path / "reg-2_3.ckpt"), restored)
    np.testing.assert_array_equal(restored.weight.asnumpy(), net.weight.asnumpy())
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and all(line.startswith("epoch time: ") and "per step time" in line for line in out)


def test_dataset_pipeline_ops():
    d = ds.NumpySlicesDataset({"a": X[:6, 0], "b": np.arange(6)}, shuffle=False)
    mapped = d.map(lambda a: a * 10, input_columns="a")
    np.testing.assert_allclose([r[0] for r in mapped.create_tuple_iterator(output_numpy=True)], X[:6, 0] * 10)
    split = d.map([lambda a: a + 1, lambda a: (a, -a)], input_columns=["a"], output_columns=["p", "n"])
    assert split.get_col_names() == ["p", "n", "b"]
    assert [r["n"].asnumpy() for r in split.create_dict_iterator()][1] == pytest.approx(-(X[1, 0] + 1))
    ms.set_seed(4)
    shuffled = d.shuffle(4)
    first, second = ([int(r[1]) for r in shuffled.create_tuple_iterator(output_numpy=True)] for _ in range(2))
    assert sorted(first) == sorted(second) == list(range(6)) and first != second   # a new order per pass
    assert d.repeat(3).get_dataset_size() == 18 and d.take(4).get_dataset_size() == 4
    assert [int(r[1]) for r in d.skip(4).create_tuple_iterator(output_numpy=True)] == [4, 5]
    assert d.project(["b"]).get_col_names() == ["b"] and d.rename("a", "x").get_col_names() == ["x", "b"]
    assert d.batch(4).repeat(2).get_dataset_size() == 4


def test_model_of_a_training_cell():
    """Model(train_cell) with no loss_fn / optimizer trains with the cell as it is (MindSpore)."""
    net = nn.Dense(3, 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.05))
    w, b = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    x, y = X[:4], Y[:4]
    Model(step).train(1, [(x, y)])
    err = x @ w.T + b - y
    np.testing.assert_allclose(net.weight.asnumpy(), w - 0.05 * 2 * err.T @ x / err.size, rtol=1e-5, atol=1e-6)


def test_iterators_run_one_epoch_per_loop():
    d = ds.NumpySlicesDataset({"a": X[:3, 0], "b": np.arange(3)}, shuffle=False)
    it = d.create_tuple_iterator(num_epochs=2)
    assert [[int(r[1].asnumpy()) for r in it] for _ in range(3)] == [[0, 1, 2], [0, 1, 2], []]
    forever = d.create_dict_iterator()
    assert [[int(r["b"].asnumpy()) for r in forever] for _ in range(3)] == [[0, 1, 2]] * 3
    assert [r[0].tolist() for r in d.create_tuple_iterator(columns=["b"], output_numpy=True)] == [0, 1, 2]


def test_fit_evaluates_every_valid_frequency_epochs():
    class Seen(Callback):
        def __init__(self):
            self.results = []

        def on_train_epoch_end(self, run_context):
            self.results.append(run_context.original_args().eval_results)
    net, model = regression(metrics={"mae"})
    seen = Seen()
    model.fit(4, batches(), batches(6), valid_frequency=2, callbacks=seen)
    assert seen.results[0] is None and seen.results[2] is seen.results[1]   # (the latest evaluation)
    pred = net(Tensor(X)).asnumpy()
    assert seen.results[3] == {"mae": pytest.approx(np.mean(np.abs(pred - Y)), rel=1e-5)}
    assert seen.results[1]["mae"] > seen.results[3]["mae"]
