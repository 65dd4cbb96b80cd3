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
