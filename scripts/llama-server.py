"""llama-cpp-python's OpenAI-compatible server with llama.cpp's extra buffer types off.

On CPUs with AMX, llama.cpp repacks weights into AMX buffers and its AMX kernels segfault on the
first request; llama-cpp-python has no setting for it, so the model's default parameters are
patched before the server loads the model. Arguments are the server's own (python -m llama_cpp.server).
"""
import llama_cpp.llama_cpp as native

_defaults = native.llama_model_default_params


def _without_extra_buffer_types():
    params = _defaults()
    params.use_extra_bufts = False
    return params


native.llama_model_default_params = _without_extra_buffer_types

from llama_cpp.server.__main__ import main  # noqa: E402  (after the patch, so the model loads with it)

main()
