"""compose.yaml is the production deployment: Ollama, PostgreSQL with pgvector, and officeqa built here.

Validated with Debian's ``docker-compose config`` (scripts/apt-packages-test.txt installs it) and read
as YAML to pin what docs/deploying.md promises: services, health checks, volumes, the environment that
selects the PostgreSQL backend and bge-m3 embeddings through Ollama.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


def test_docker_compose_accepts_the_file() -> None:
    if shutil.which("docker-compose") is None:
        pytest.skip("docker-compose is not installed (scripts/setup test installs it from Debian)")
    done = subprocess.run(["docker-compose", "-f", str(ROOT / "compose.yaml"), "config", "--quiet"],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    services = subprocess.run(["docker-compose", "-f", str(ROOT / "compose.yaml"), "config", "--services"],
                              capture_output=True, text=True, check=True, cwd=ROOT).stdout.split()
    assert sorted(services) == ["officeqa", "ollama", "postgres"]


def test_services_have_health_checks_volumes_and_the_production_environment(compose: dict) -> None:
    services = compose["services"]
    assert set(services) == {"ollama", "postgres", "officeqa"}
    for name, service in services.items():
        assert service["healthcheck"]["test"], name
    assert services["ollama"]["image"].startswith("ollama/ollama")
    assert "ollama:/root/.ollama" in services["ollama"]["volumes"]
    assert services["postgres"]["image"].startswith("pgvector/pgvector:pg")
    assert int(services["postgres"]["image"].rsplit("pg", 1)[1]) >= 16
    assert "postgres:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    app = services["officeqa"]
    assert app["build"]["dockerfile"] == "Dockerfile"
    assert "officeqa-data:/data" in app["volumes"]
    env = app["environment"]
    assert env["OLLAMA_HOST"] == "http://ollama:11434"
    assert env["OFFICEQA_STORAGE__BACKEND"] == "postgres"
    assert env["OFFICEQA_STORAGE__POSTGRES_DSN"].startswith("postgresql://") and "@postgres:5432/" in env[
        "OFFICEQA_STORAGE__POSTGRES_DSN"]
    assert env["OFFICEQA_EMBEDDING__BACKEND"] == "ollama" and env["OFFICEQA_EMBEDDING__OLLAMA_MODEL"] == "bge-m3"
    assert env["OFFICEQA_DATA_DIR"] == "/data"
    assert app["depends_on"] == {"ollama": {"condition": "service_healthy"},
                                 "postgres": {"condition": "service_healthy"}}
    assert set(compose["volumes"]) == {"ollama", "postgres", "officeqa-data"}


def test_the_environment_is_valid_settings(compose: dict) -> None:
    """Every OFFICEQA_* variable compose sets is a real setting with a valid value."""
    from officeqa.settings import load_settings

    env = {k: str(v).replace("${OFFICEQA_POSTGRES_PASSWORD:-officeqa}", "officeqa")
           for k, v in compose["services"]["officeqa"]["environment"].items()}
    settings = load_settings(environ=env)
    assert settings.storage.backend == "postgres" and settings.embedding.backend == "ollama"
    assert settings.ollama.host == "http://ollama:11434"


def test_the_image_installs_the_way_the_readme_says() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    deploying = (ROOT / "docs" / "deploying.md").read_text(encoding="utf-8")
    assert "scripts/setup runtime" in dockerfile
    assert "scripts/setup runtime" in deploying and "ollama pull bge-m3" in deploying
