// Full-text search over every payload: a query box and the hits grouped by compile and
// artifact; activating a hit opens the artifact at the matching line.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QTreeView;

namespace gui {

class SearchResultsModel;

class SearchPage : public QWidget {
  Q_OBJECT
public:
  explicit SearchPage(QWidget* parent = nullptr);

  void clear();
  void search(const QString& query);
  SearchResultsModel* model() const { return model_; }
  QLineEdit* queryEdit() const { return edit_; }
  QTreeView* view() const { return view_; }
  void focusQuery();

Q_SIGNALS:
  // Opens `artifactId` of `compileId` at 1-based `line`.
  void hitActivated(qint64 compileId, qint64 artifactId, int line);

private:
  void updateStatus();

  QLineEdit* edit_;
  QLabel* status_;
  QTreeView* view_;
  SearchResultsModel* model_;
};

} // namespace gui
