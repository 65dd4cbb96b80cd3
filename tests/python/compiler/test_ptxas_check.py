"""The automatic ptxas check (conftest.py) really refuses bad PTX."""

import os

import pytest

from conftest import PTXAS, ptxas_check

pytestmark = pytest.mark.skipif(not os.path.exists(PTXAS), reason="no ptxas in the CUDA toolkit")


@pytest.mark.no_ptxas
def test_ptxas_check_refuses_invalid_ptx():
    bad = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { not_an_instruction; }\n"
    with pytest.raises(AssertionError, match="ptxas refused"):
        ptxas_check(bad)


@pytest.mark.no_ptxas
def test_ptxas_check_accepts_a_trivial_kernel_and_a_device_function():
    ptxas_check(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n")
    ptxas_check(".version 8.0\n.target sm_80\n.address_size 64\n.visible .func f() { ret; }\n", device=True)


def _module(name, body="ret;", note=""):
    return f".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry {name}() {{ {body} }}\n// {note}\n"


@pytest.mark.no_ptxas
def test_many_modules_are_checked_together_and_a_bad_one_is_named():
    """ptxas_check_many assembles modules in batches, the names each defines made distinct
    (three modules all defining `k` pass together), and a batch holding one bad module is
    checked module by module, so the failure carries that module's own message."""
    from conftest import ptxas_check_many

    good = [(_module("k", note=str(i)), False) for i in range(3)]
    ptxas_check_many(good)
    bad = _module("k", "not_an_instruction;")
    with pytest.raises(AssertionError, match="ptxas refused(.|\n)*not_an_instruction"):
        ptxas_check_many([(_module("k", note="other"), False), (bad, False), (_module("k2"), False)])
