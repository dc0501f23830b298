"""Named facts of reports (法定代表人, 会计师事务所, auditor, CEO, …) read from the stored parsed document at question
time: ``fields`` (the word list), ``layout`` (key-value rows and lines), ``prose`` (sentences and signatures),
``roles`` (people tables), ``extract`` (choice per field, cache), ``question`` (which fields are asked), ``answer``
(the text). The answerer is ``retrieval.answerers.named_facts``."""
