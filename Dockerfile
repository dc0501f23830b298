# officeqa: the server and workers. Built by compose.yaml; the install steps are the README's
# (`scripts/setup runtime`: a .venv with the product and its runtime dependencies).
FROM python:3.11-slim-bookworm

# antiword: legacy .doc files (indexing/parsing); fonts-wqy-microhei: a CJK font (scripts/apt-packages-runtime.txt),
# for a browser or screenshot tool run in the container; everything else comes from PyPI wheels
RUN apt-get update \
    && apt-get install -y --no-install-recommends antiword fonts-wqy-microhei \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . /app
RUN PYTHON=python3 scripts/setup runtime

ENV PATH="/app/.venv/bin:${PATH}" \
    OFFICEQA_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 \
    CMD python -c "import httpx; httpx.get('http://127.0.0.1:8000/api/health', timeout=5).raise_for_status()"

# Binds to 0.0.0.0 once an API key exists (`officeqa keys create ...`); before that, localhost only.
CMD ["officeqa", "serve", "--host", "0.0.0.0", "--port", "8000"]
