"""The docs site and the rendered handouts, built from the sources under docs/ and the records of docs/data/.

- `generate`: the site's pages and plots (scripts/build-docs); `handouts`: labs/*/README.md (make handouts)
- `render`: the placeholders of the sources, filled in from the records (one handler per placeholder kind)
- `editions`: what only the instructors' edition or only the student release shows, marked in one text
- `plots`, `diagrams`: the pictures; `dcgan_tables`, `grading_tables`, `reliability`: tables of the pages
- `check_numbers`, `check_markup`, `check_links`, `check_search`: the checks a built site must pass
- `site_frame`, `doxygen_text`, `browser`, `screenshots`: the Doxygen frame and the headless browser
"""
